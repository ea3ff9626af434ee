/** A user's result schema per provider: sent as written, converted (and read back), or refused by place. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { validateCompiled } from '../../core/compiled-validators.ts';
import { PROVIDERS, providerProfile } from './providers.ts';
import { schemaPlanFor, schemaPlansForEndpoints, schemaRefusal } from './schema-delivery.ts';

const IN_SUBSET = {
  type: 'object',
  additionalProperties: false,
  required: ['ok'],
  properties: { ok: { type: 'boolean' } },
};

const OPEN = {
  type: 'object',
  required: ['mood'],
  properties: {
    mood: { type: 'string', enum: ['calm', 'tense'] },
    intensity: { type: 'number', minimum: 0, maximum: 1 },
    tags: { type: 'object', additionalProperties: { type: 'string' } },
  },
};

const NO_STRICT_FORM = { type: 'object', properties: { x: { not: { type: 'string' } } }, required: ['x'] };

test('a schema inside the subset is sent as written to every provider', () => {
  for (const p of PROVIDERS) assert.equal(schemaPlanFor(IN_SUBSET, providerProfile(p)).form, 'as_written', p);
});

test('each provider has one decided form for a schema outside the subset', () => {
  const forms = Object.fromEntries(PROVIDERS.map((p) => [p, schemaPlanFor(OPEN, providerProfile(p)).form]));
  assert.deepEqual(forms, {
    generic: 'as_written',
    openai: 'converted',
    'azure-openai': 'converted',
    anthropic: 'as_written',
    gemini: 'converted',
    openrouter: 'converted',
    ollama: 'converted',
    vllm: 'as_written',
    llamacpp: 'converted',
    lmstudio: 'converted',
  });
});

test('the conversion closes objects, makes optional properties nullable and required, tells the dropped bounds in the description, and reads the reply back into the original', () => {
  const plan = schemaPlanFor(OPEN, providerProfile('openai'));
  assert.equal(plan.form, 'converted');
  if (plan.form !== 'converted') return;
  const s = plan.schema as {
    additionalProperties: boolean;
    required: string[];
    properties: Record<string, unknown>;
  };
  assert.equal(s.additionalProperties, false);
  assert.deepEqual(s.required, ['mood', 'intensity', 'tags']);
  assert.deepEqual(s.properties.intensity, { type: ['number', 'null'], description: 'minimum 0, maximum 1' });
  // A map is sent as {key, value} pairs.
  assert.deepEqual((s.properties.tags as { type: unknown }).type, ['array', 'null']);
  const reply = { mood: 'calm', intensity: null, tags: [{ key: 'where', value: 'gate' }] };
  const back = plan.readBack(reply);
  assert.deepEqual(back, { mood: 'calm', tags: { where: 'gate' } });
  assert.ok(validateCompiled(OPEN, back).ok, 'the read-back reply is judged by the original schema');
  // A bound the provider could not enforce is still the original's: 602 is refused there.
  assert.equal(validateCompiled(OPEN, plan.readBack({ mood: 'calm', intensity: 602, tags: null })).ok, false);
});

test('a schema with no strict form is refused for strict and grammar providers, sent as written where any JSON Schema is taken', () => {
  for (const p of PROVIDERS) {
    const plan = schemaPlanFor(NO_STRICT_FORM, providerProfile(p));
    const form = providerProfile(p).schemaForm;
    assert.equal(plan.form, form === 'as_written' ? 'as_written' : 'refused', p);
  }
  const plan = schemaPlanFor(NO_STRICT_FORM, providerProfile('llamacpp'));
  assert.equal(plan.form, 'refused');
  if (plan.form !== 'refused') return;
  const failure = schemaRefusal('llamacpp', plan.violations);
  assert.equal(failure.failureClass, 'response_format_rejected');
  assert.match(
    failure.message,
    /cannot be sent to llamacpp: \/properties\/x\/not "not" has no strict-subset equivalent/,
  );
  assert.deepEqual((failure.details as { provider: string }).provider, 'llamacpp');
});

test('every configured endpoint says what the schema becomes there, before any call', () => {
  const plans = schemaPlansForEndpoints(NO_STRICT_FORM, {
    NOEMA_LLM_BASE_URL: 'https://api.openai.com/v1',
    NOEMA_LLM_PROVIDER: 'openai',
    NOEMA_LLM_LOCAL_BASE_URL: 'http://127.0.0.1:8000/v1',
    NOEMA_LLM_LOCAL_PROVIDER: 'vllm',
    NOEMA_LLM_MODEL_FAST: 'gpt-4o-mini',
  });
  assert.deepEqual(
    plans.map((p) => [p.endpoint, p.provider, p.form, p.violations?.[0]?.path]),
    [
      ['default', 'openai', 'refused', '/properties/x/not'],
      ['local', 'vllm', 'as_written', undefined],
    ],
  );
});

test('a root the subset cannot hold (a free-form object, an array) is wrapped as {value} and unwrapped on reading back', () => {
  const free = schemaPlanFor({ type: 'object' }, providerProfile('openai'));
  assert.equal(free.form, 'converted');
  if (free.form !== 'converted') return;
  assert.deepEqual(free.schema, {
    type: 'object',
    required: ['value'],
    properties: { value: { type: 'string', description: 'A JSON value, encoded as a string of JSON.' } },
    additionalProperties: false,
  });
  assert.deepEqual(free.readBack({ value: '{"a":1}' }), { a: 1 });
  const list = { type: 'array', items: { type: 'integer', minimum: 0 } };
  const arr = schemaPlanFor(list, providerProfile('llamacpp'));
  assert.equal(arr.form, 'converted');
  if (arr.form !== 'converted') return;
  assert.deepEqual(arr.readBack({ value: [1, 2] }), [1, 2]);
  assert.ok(validateCompiled(list, arr.readBack({ value: [1, 2] })).ok);
});
