/**
 * The final-schema rule (seed 004 assembly: the final schema "resolves and is the WorldPatch schema
 * or structurally equivalent to it"): a schema equal to the WorldPatch schema once annotations are
 * dropped assembles and runs; one that could accept a document that is not a WorldPatch is refused
 * with FINAL_SCHEMA_NOT_WORLD_PATCH, naming where it differs.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isNoemaError } from '../../src/core/errors.ts';
import {
  getComponent,
  putCognitionProfile,
  putCognitionWorkflow,
  putJsonSchema,
  WORLD_PATCH_SCHEMA,
} from '../../src/runtimes/world/index.ts';
import type { Store } from '../../src/store/store.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { type ParkKit, startParkKit } from '../../src/testing/world-kit.ts';
import { count } from './helpers.ts';

type Schema = Record<string, unknown>;
const clone = (s: unknown): Schema => structuredClone(s) as Schema;

/** `schema` without `keys`, wherever they are keywords of a (sub)schema (not property names). */
function withoutAnnotations(schema: unknown, keys: readonly string[]): unknown {
  if (Array.isArray(schema)) return schema.map((s) => withoutAnnotations(s, keys));
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Schema = {};
  for (const [k, v] of Object.entries(schema)) {
    if (keys.includes(k)) continue;
    out[k] =
      k === 'properties'
        ? Object.fromEntries(Object.entries(v as Schema).map(([n, s]) => [n, withoutAnnotations(s, keys)]))
        : withoutAnnotations(v, keys);
  }
  return out;
}

/** Reverses every object's key order (canonical JSON must not care). */
function reversed(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(reversed);
  if (typeof v !== 'object' || v === null) return v;
  return Object.fromEntries(
    Object.entries(v)
      .reverse()
      .map(([k, x]) => [k, reversed(x)]),
  );
}

/** Assembles the park with Bob's workflow using `finalSchema` as its final schema. */
async function assembleWithFinal(
  store: Store,
  kit: ParkKit,
  finalSchema: unknown,
): Promise<{ hash: string }> {
  const schema = await putJsonSchema(store, finalSchema as never);
  const wf = clone((await getComponent(store, kit.doc('workflows/bob.json'), 'cognition_workflow')).content);
  (wf.nodes as Schema[])[0]!.final_schema_ref = schema;
  const workflow = await putCognitionWorkflow(store, wf);
  const profile = await putCognitionProfile(store, {
    version: 1,
    label: 'final_check',
    workflow_ref: workflow,
  });
  return { hash: await kit.variant({ subjects: [{ entity_id: 'bob', profile: profile.hash }] }) };
}

async function refusedAt(p: Promise<unknown>): Promise<Array<{ path: string; message: string }>> {
  try {
    await p;
  } catch (err) {
    assert.ok(isNoemaError(err), String(err));
    assert.equal(err.code, 'SCENARIO_INVALID', err.message);
    const problems = (err.details.problems as Array<{ code: string; path: string; message: string }>).filter(
      (x) => x.code === 'FINAL_SCHEMA_NOT_WORLD_PATCH',
    );
    assert.equal(problems.length, 1, JSON.stringify(err.details.problems));
    return problems;
  }
  assert.fail('expected SCENARIO_INVALID');
}

describeEachStore('the final schema is the WorldPatch schema or structurally equivalent to it', (factory) => {
  test('the WorldPatch schema without its titles and descriptions, reordered and annotated otherwise, assembles and runs', async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startParkKit(store);
      try {
        const bare = withoutAnnotations(WORLD_PATCH_SCHEMA, ['title', 'description', '$schema']);
        const { hash } = await assembleWithFinal(store, kit, bare);
        const annotated = clone(reversed(bare));
        annotated.$comment = 'kept in our repository';
        annotated.examples = [{ narration: 'Nothing happens.', effects: [] }];
        (annotated.properties as Schema).narration = {
          ...((annotated.properties as Schema).narration as Schema),
          default: '',
          title: 'Narration',
        };
        (annotated.required as string[]).reverse();
        await assembleWithFinal(store, kit, annotated);
        // It runs: the turn commits Bob's patch.
        await kit.world('equivalent', hash);
        const result = await kit.runtime.runTurn({ world_slug: 'equivalent' });
        assert.equal(result.status, 'committed', JSON.stringify(result.failure));
      } finally {
        await kit.close();
      }
    });
  });

  test('a schema that would accept a document that is not a WorldPatch is refused, naming where it differs', async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startParkKit(store);
      try {
        const before = await count(store, 'SELECT COUNT(*) AS n FROM scenarios');
        const open = clone(WORLD_PATCH_SCHEMA);
        open.additionalProperties = true;
        const [p1] = await refusedAt(assembleWithFinal(store, kit, open));
        assert.match(p1!.path, /\/nodes\/0\/final_schema_ref$/);
        assert.match(p1!.message, /differs at \/additionalProperties/);
        assert.doesNotMatch(p1!.message, /accepting other outputs/);

        const longer = clone(WORLD_PATCH_SCHEMA);
        ((longer.properties as Schema).narration as Schema).maxLength = 1_000_000;
        const [p2] = await refusedAt(assembleWithFinal(store, kit, longer));
        assert.match(p2!.message, /differs at \/properties\/narration\/maxLength/);

        // A property named like an annotation keyword is a property: the effect would accept it.
        const extra = clone(WORLD_PATCH_SCHEMA);
        const effect = (((extra.properties as Schema).effects as Schema).items as { oneOf: Schema[] })
          .oneOf[0]!;
        (effect.properties as Schema).description = { type: 'string' };
        const [p3] = await refusedAt(assembleWithFinal(store, kit, extra));
        assert.match(p3!.message, /properties\/description/);

        assert.equal(await count(store, 'SELECT COUNT(*) AS n FROM scenarios'), before, 'nothing stored');
      } finally {
        await kit.close();
      }
    });
  });
});
