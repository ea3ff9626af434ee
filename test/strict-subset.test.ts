/**
 * Every result schema Noema sends a model is in the strict subset OpenAI strict mode, Gemini,
 * Anthropic and llama.cpp's grammar converter all accept (`src/core/strict-schema.ts`).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { JsonSchema } from '../src/core/schema-registry.ts';
import { toStrictDelivery } from '../src/core/strict-delivery.ts';
import { strictSubsetViolations } from '../src/core/strict-schema.ts';
import {
  EMOTION_DELIVERY,
  INSIGHTS_DELIVERY,
  REASONING_REPLY_DELIVERY,
  SYNTHESIS_DELIVERY,
} from '../src/runtimes/agent/reply-schema.ts';
import { EVAL_SCHEMA } from '../src/runtimes/flow/nodes/decision.ts';
import { ADD_SCHEMA, RETRIEVE_SCHEMA } from '../src/runtimes/flow/nodes/memory.ts';
import { PATCH_SCHEMA } from '../src/runtimes/flow/nodes/plan.ts';
import {
  composeToolLoopDelivery,
  composeToolLoopSchema,
  WORLD_PATCH_DELIVERY,
} from '../src/runtimes/world/tool-loop-output.ts';
import { PROVIDERS, providerProfile } from '../src/sources/llm/providers.ts';
import { schemaPlanFor } from '../src/sources/llm/schema-delivery.ts';

const PARK_SCHEMAS = join(import.meta.dirname, '../examples/park/schemas');
const parkTools = readdirSync(PARK_SCHEMAS)
  .filter((f) => f.endsWith('-arguments.json'))
  .map((f) => ({
    name: f.replace('-arguments.json', '').replaceAll('-', '_'),
    arguments: JSON.parse(readFileSync(join(PARK_SCHEMAS, f), 'utf8')) as Record<string, unknown>,
  }));

const flowDelivery = (schema: Record<string, unknown>) => {
  const d = toStrictDelivery(schema);
  assert.ok(d.ok, 'a flowchart node schema has a strict-subset form');
  return d.schema;
};

const SENT: Record<string, unknown> = {
  WorldPatch: WORLD_PATCH_DELIVERY,
  'ToolLoopOutput (no tools)': composeToolLoopDelivery([]),
  'ToolLoopOutput (the park tools)': composeToolLoopDelivery(parkTools),
  ReasoningReply: REASONING_REPLY_DELIVERY,
  EmotionReading: EMOTION_DELIVERY,
  InteractionInsights: INSIGHTS_DELIVERY,
  ProfileSynthesis: SYNTHESIS_DELIVERY,
  'flow decision evaluations': flowDelivery(EVAL_SCHEMA),
  'flow memory add': flowDelivery(ADD_SCHEMA),
  'flow memory retrieve': flowDelivery(RETRIEVE_SCHEMA),
  'flow plan patch': flowDelivery(PATCH_SCHEMA),
};

for (const [name, schema] of Object.entries(SENT))
  test(`the ${name} schema sent to models is in the strict subset`, () => {
    assert.deepEqual(strictSubsetViolations(schema), []);
  });

test('every schema Noema sends goes to every provider as written: none is converted or refused on the way', () => {
  for (const [name, schema] of Object.entries(SENT))
    for (const provider of PROVIDERS)
      assert.equal(
        schemaPlanFor(schema as JsonSchema, providerProfile(provider)).form,
        'as_written',
        `${name} → ${provider}`,
      );
});

test('the ToolLoopOutput contract itself (a root anyOf) is not, which is why it is not what is sent', () => {
  const rules = strictSubsetViolations(composeToolLoopSchema(parkTools)).map((v) => v.rule);
  assert.ok(rules.includes('root_object'));
  assert.ok(rules.includes('unsupported_keyword'));
});

test('a tool whose arguments schema has no strict-subset form is refused, naming the keyword and the rule', () => {
  const args = { type: 'object', properties: { to: { allOf: [{ type: 'string' }] } } };
  assert.throws(
    () => composeToolLoopDelivery([{ name: 'send', arguments: args }]),
    (e: unknown) => {
      const err = e as { code: string; message: string };
      assert.equal(err.code, 'INVALID_SCHEMA');
      assert.match(err.message, /tool "send".*\/properties\/to\/allOf.*OpenAI strict mode refuses allOf/);
      return true;
    },
  );
});
