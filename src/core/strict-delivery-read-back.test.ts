/**
 * `fromStrictDelivery` reads back every reply a model delivers (every member of it), so it makes no
 * arrays to ask a schema what it is. These tests hold the allocation-free reading to the reading it
 * replaced, kept here as the reference, on generated schemas and replies.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { validateCompiled } from './compiled-validators.ts';
import { setOwn } from './own.ts';
import type { JsonSchema } from './schema-registry.ts';
import { fromStrictDelivery } from './strict-delivery.ts';

type Schema = Record<string, unknown>;

// ---------------------------------------------------------------- the reading before (reference)

const REFUSED_KEYS = [
  'allOf',
  'not',
  'if',
  'then',
  'else',
  '$ref',
  '$defs',
  'definitions',
  'patternProperties',
  'propertyNames',
  'dependentRequired',
  'dependentSchemas',
  'unevaluatedProperties',
  'unevaluatedItems',
  'prefixItems',
  'contains',
];
const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);
const typesOf = (s: Schema): string[] =>
  Array.isArray(s.type) ? (s.type as string[]) : typeof s.type === 'string' ? [s.type] : [];

function isFreeForm(s: JsonSchema): boolean {
  if (s === true) return true;
  if (!isSchema(s)) return false;
  const types = typesOf(s).filter((t) => t !== 'null');
  if (types.length === 0) return !['enum', 'const', 'anyOf', 'oneOf', ...REFUSED_KEYS].some((k) => k in s);
  return (
    types.length === 1 &&
    types[0] === 'object' &&
    !isSchema(s.properties) &&
    !isSchema(s.additionalProperties) &&
    s.additionalProperties !== false
  );
}

const isMap = (s: Schema) =>
  typesOf(s).includes('object') && !isSchema(s.properties) && isSchema(s.additionalProperties);

function acceptsNull(s: JsonSchema): boolean {
  if (s === true) return true;
  if (!isSchema(s)) return false;
  if (isFreeForm(s) && typesOf(s).length === 0) return true;
  if (typesOf(s).includes('null') || s.const === null) return true;
  if (Array.isArray(s.enum) && s.enum.includes(null)) return true;
  const alts = (s.anyOf ?? s.oneOf) as JsonSchema[] | undefined;
  return Array.isArray(alts) && alts.some(acceptsNull);
}

function reference(value: unknown, schema: JsonSchema): unknown {
  if (isFreeForm(schema)) {
    if (typeof value !== 'string') return value;
    try {
      return JSON.parse(value);
    } catch {
      return value;
    }
  }
  if (!isSchema(schema)) return value;
  const alts = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (Array.isArray(alts)) {
    for (const alt of alts) {
      const decoded = reference(value, alt);
      if (validateCompiled(alt, decoded).ok) return decoded;
    }
    return value;
  }
  if (isMap(schema) && Array.isArray(value)) {
    const entries = value.map((p) =>
      isSchema(p) && typeof p.key === 'string'
        ? [p.key, reference(p.value, schema.additionalProperties as Schema)]
        : [String(p), p],
    );
    return Object.fromEntries(entries);
  }
  if (isSchema(value) && isSchema(schema.properties)) {
    const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(value)) {
      const sub = schema.properties[key] as JsonSchema | undefined;
      if (sub === undefined) setOwn(out, key, v);
      else if (v === null && !required.has(key) && !acceptsNull(sub)) continue;
      else setOwn(out, key, reference(v, sub));
    }
    return out;
  }
  if (Array.isArray(value) && typesOf(schema).includes('array'))
    return value.map((v) => reference(v, (schema.items ?? true) as JsonSchema));
  return value;
}

// ---------------------------------------------------------------- generated schemas and replies

const KEYS = ['a', 'b', 'c', 'key', 'value'];
const key = fc.constantFrom(...KEYS);
const scalarType = fc.constantFrom('string', 'number', 'integer', 'boolean', 'null', 'object', 'array');

const { schema } = fc.letrec<{ schema: JsonSchema }>((tie) => ({
  schema: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(true),
    fc.constant({}),
    fc.record({ type: scalarType }),
    fc.record({ type: fc.uniqueArray(scalarType, { minLength: 1, maxLength: 3 }) }),
    fc.record({
      enum: fc.array(fc.oneof(fc.string(), fc.integer(), fc.constant(null)), { minLength: 1, maxLength: 3 }),
    }),
    fc.record({ const: fc.oneof(fc.string(), fc.constant(null)) }),
    fc.record({ type: fc.constantFrom('object', ['object', 'null']), additionalProperties: fc.boolean() }),
    fc.record({ type: fc.constantFrom('object', ['object', 'null']), additionalProperties: tie('schema') }),
    fc.record(
      {
        type: fc.constantFrom('object', ['object', 'null']),
        properties: fc.dictionary(key, tie('schema'), { maxKeys: 4 }),
        required: fc.uniqueArray(key, { maxLength: 3 }),
        additionalProperties: fc.constant(false),
      },
      { requiredKeys: ['type', 'properties'] },
    ),
    fc.record(
      { type: fc.constantFrom('array', ['array', 'null']), items: tie('schema') },
      { requiredKeys: ['type'] },
    ),
    fc.record({ anyOf: fc.array(tie('schema'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ oneOf: fc.array(tie('schema'), { minLength: 1, maxLength: 2 }) }),
    fc.record({ allOf: fc.array(tie('schema'), { maxLength: 1 }) }),
  ) as fc.Arbitrary<JsonSchema>,
}));

const { reply } = fc.letrec<{ reply: unknown }>((tie) => ({
  reply: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer(),
    fc.string(),
    fc.constantFrom('{"a":1}', '[1,2]', '"x"', 'not json'),
    fc.dictionary(key, tie('reply'), { maxKeys: 4 }),
    fc.array(tie('reply'), { maxLength: 3 }),
    fc.array(fc.record({ key, value: tie('reply') }), { maxLength: 3 }),
  ),
}));

/** What reading returned, or the code of what it threw (a schema the validator refuses). */
function outcome(read: () => unknown): unknown {
  try {
    return { value: read() };
  } catch (err) {
    return { threw: (err as { code?: unknown }).code ?? String(err) };
  }
}

describe('reading a delivered reply back into its contract', () => {
  test('reads every generated reply as the reading before did, for every generated schema', () => {
    fc.assert(
      fc.property(schema, reply, (s, r) => {
        assert.deepEqual(
          outcome(() => fromStrictDelivery(r, s)),
          outcome(() => reference(r, s)),
        );
      }),
      { numRuns: 3000 },
    );
  });

  test("a null member named like an object's inherited property is kept when the contract does not declare it", () => {
    const contract = { type: 'object', properties: { a: { type: 'string' } }, additionalProperties: false };
    const back = fromStrictDelivery({ a: 'x', toString: null, constructor: null }, contract);
    // The contract's `properties` object inherits `toString`: it is not a property the contract declares.
    assert.deepEqual(back, { a: 'x', toString: null, constructor: null });
  });
});
