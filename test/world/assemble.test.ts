/**
 * Components and assembly (seed 004 Phase C and the assembly validation list): idempotent
 * content-addressed puts, refs that must exist, the old profile shape refused, every problem of
 * a scenario reported at once with nothing stored, the final-schema rule, list_uses_of.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isNoemaError } from '../../src/core/errors.ts';
import {
  assembleScenario,
  getComponent,
  listComponents,
  listUsesOf,
  putCognitionProfile,
  putCognitionWorkflow,
  putEntity,
  putEnvironment,
  putJsonSchema,
} from '../../src/runtimes/world/index.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { startParkKit } from '../../src/testing/world-kit.ts';
import { count } from './helpers.ts';

async function rejects(p: Promise<unknown>, code: string): Promise<Record<string, unknown>> {
  try {
    await p;
  } catch (err) {
    assert.ok(isNoemaError(err), String(err));
    assert.equal(err.code, code, err.message);
    return err.details;
  }
  assert.fail(`expected ${code}`);
}

describeEachStore('world components and assemble_scenario', (factory) => {
  test('puts are content-addressed and idempotent; assembly calls no source and no LLM', async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startParkKit(store);
      try {
        const env = { version: 1, label: 'park', content: 'A park.' };
        const a = await putEnvironment(store, env);
        const b = await putEnvironment(store, { content: 'A park.', label: 'park', version: 1 });
        assert.equal(a.hash, b.hash);
        assert.equal(
          await count(store, 'SELECT COUNT(*) AS n FROM environments WHERE hash = ?', [a.hash]),
          1,
        );
        assert.equal(kit.model.requests.length, 0);
        assert.equal(kit.toys.requests.length, 0);
        const listed = await listComponents(store, { kind: 'cognition_workflow' });
        assert.equal(listed.items.length, 2);
        assert.equal((await getComponent(store, kit.bundle.scenario_hash)).kind, 'scenario');
      } finally {
        await kit.close();
      }
    });
  });

  test('a reference to a component that is not stored is refused and nothing is written', async () => {
    await factory.withStore(async ({ store }) => {
      const missing = 'a'.repeat(64);
      const d = await rejects(
        putCognitionProfile(store, { version: 1, label: 'x', workflow_ref: { hash: missing } }),
        'UNKNOWN_REFERENCE',
      );
      assert.deepEqual(
        (d.missing as Array<{ hash: string }>).map((m) => m.hash),
        [missing],
      );
      await rejects(
        putCognitionWorkflow(store, {
          version: 1,
          nodes: [{ id: 'act', llm_source_ref: { hash: missing } }],
        }),
        'UNKNOWN_REFERENCE',
      );
      assert.equal(await count(store, 'SELECT COUNT(*) AS n FROM cognition_profiles'), 0);
      assert.equal(await count(store, 'SELECT COUNT(*) AS n FROM cognition_workflows'), 0);
    });
  });

  test('a profile carrying perceive/intend/adjudicate fields is refused with a clear error; no profile runs without a workflow', async () => {
    await factory.withStore(async ({ store }) => {
      const d = await rejects(
        putCognitionProfile(store, {
          version: 1,
          label: 'old',
          perceive_system: 'p',
          intend_system: 'i',
          adjudicate_system: 'a',
          adjudication_schema: {},
        }),
        'OBSOLETE_PROFILE_SHAPE',
      );
      assert.deepEqual(d.fields, [
        'perceive_system',
        'intend_system',
        'adjudicate_system',
        'adjudication_schema',
      ]);
      await rejects(putCognitionProfile(store, { version: 1, label: 'none' }), 'INVALID_INPUT');
      await rejects(
        putEntity(store, {
          version: 1,
          entity_id: 'crumb',
          kind: 'prop',
          environment_label: 'park',
          state: 'x',
          memory: '',
        }),
        'INVALID_INPUT',
      );
      assert.equal(await count(store, 'SELECT COUNT(*) AS n FROM cognition_profiles'), 0);
    });
  });

  test('assembly reports every problem at once and stores nothing', async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startParkKit(store);
      try {
        const src = (p: string) => ({ hash: kit.doc(p) });
        // The seed's bug: a final schema the substrate accepts but the kernel cannot apply.
        const legacy = await putJsonSchema(store, {
          type: 'object',
          required: ['narration', 'agent_state_after'],
          properties: { narration: { type: 'string' }, agent_state_after: { type: 'string' } },
        });
        const bad = await putCognitionWorkflow(store, {
          version: 1,
          execution: 'per_subject_ordered',
          ambient_sources: [
            {
              id: 'w',
              source_ref: src('sources/weather.json'),
              run: 'once_per_turn',
              scope: { entity_id: 'nobody' },
              visible_to: { environment_label: 'beach' },
              request_template: { turn: { $from: '/subject/entity_id' } },
              inject_as: '/ambient/w',
            },
            {
              id: 'w',
              source_ref: src('sources/pa.json'),
              run: 'hourly',
              scope: 'world',
              visible_to: 'all_subjects',
              request_template: {},
            },
          ],
          nodes: [
            {
              id: 'act',
              type: 'llm_tool_loop',
              llm_source_ref: src('sources/vending.json'),
              prompt_template: {
                messages: [{ role: 'user', content: '{{world.projection}} {{secret.sauce}}' }],
              },
              available_tools: [
                {
                  name: 'buy_candy',
                  description: 'x',
                  source_ref: src('sources/vending.json'),
                  arguments_schema_ref: src('schemas/buy-candy-arguments.json'),
                  idempotent: 'yes',
                },
                { name: 'buy_candy', description: 'x', source_ref: src('sources/vending.json') },
              ],
              max_tool_calls: -1,
              final_schema_ref: { hash: legacy.hash },
            },
          ],
          apply: { from: 'think.final' },
        });
        const profile = await putCognitionProfile(store, { version: 1, label: 'bad', workflow_ref: bad });
        const before = await count(store, 'SELECT COUNT(*) AS n FROM scenarios');
        const d = await rejects(
          assembleScenario(store, {
            version: 1,
            label: 'broken',
            environments: [{ hash: kit.doc('environments/park.json') }],
            entities: [{ hash: kit.doc('entities/bob.json') }, { hash: kit.doc('entities/crumb.json') }],
            subjects: [
              { entity_id: 'bob', cognition_profile_ref: profile },
              { entity_id: 'crumb', cognition_profile_ref: profile },
              { entity_id: 'ghost', cognition_profile_ref: profile },
            ],
          }),
          'SCENARIO_INVALID',
        );
        const codes = new Set((d.problems as Array<{ code: string }>).map((p) => p.code));
        for (const code of [
          'DUPLICATE_AMBIENT_SOURCE_ID',
          'MISSING_FIELD',
          'AMBIENT_RUN_UNSUPPORTED',
          'TEMPLATE_PATH_INVALID',
          'SCOPE_UNKNOWN_ENTITY',
          'SCOPE_UNKNOWN_ENVIRONMENT',
          'LLM_SOURCE_NOT_LLM',
          'INVALID_FIELD',
          'TEMPLATE_UNKNOWN_VARIABLE',
          'DUPLICATE_TOOL_NAME',
          'FINAL_SCHEMA_NOT_WORLD_PATCH',
          'APPLY_FROM_INVALID',
          'SUBJECT_NOT_AGENT',
          'UNKNOWN_SUBJECT',
        ])
          assert.ok(codes.has(code), `missing ${code} in ${[...codes].join(', ')}`);
        for (const p of d.problems as Array<{ path: string; message: string }>) {
          assert.ok(p.path.startsWith('/'), p.path);
          assert.ok(p.message.length > 0);
        }
        assert.ok(
          (d.problems as Array<{ path: string }>).some((p) => p.path.endsWith('/max_generation_attempts')),
        );
        assert.ok((d.problems as Array<{ path: string }>).some((p) => p.path.endsWith('/inject_as')));
        assert.ok(
          (d.problems as Array<{ path: string }>).some((p) =>
            p.path.endsWith('/available_tools/0/idempotent'),
          ),
        );
        assert.ok(
          (d.problems as Array<{ path: string }>).some((p) =>
            p.path.endsWith('/available_tools/1/arguments_schema_ref'),
          ),
        );
        assert.equal(await count(store, 'SELECT COUNT(*) AS n FROM scenarios'), before);
        assert.equal(kit.model.requests.length + kit.toys.requests.length, 0, 'assembly calls nothing');
      } finally {
        await kit.close();
      }
    });
  });

  test('a tool arguments schema with no strict-subset form is refused at assembly, naming the keyword and the rule', async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startParkKit(store);
      try {
        const args = await putJsonSchema(store, {
          type: 'object',
          required: ['actor_id'],
          properties: { actor_id: { allOf: [{ type: 'string' }, { minLength: 1 }] } },
        });
        const bob = (await getComponent(store, kit.doc('workflows/bob.json'))).content as {
          nodes: Array<{ available_tools?: Array<{ arguments_schema_ref: { hash: string } }> }>;
        };
        const node = bob.nodes.find((n) => (n.available_tools ?? []).length > 0)!;
        node.available_tools![0]!.arguments_schema_ref = { hash: args.hash };
        const wf = await putCognitionWorkflow(store, bob as unknown as Record<string, unknown>);
        const profile = await putCognitionProfile(store, { version: 1, label: 'strict', workflow_ref: wf });
        const d = await rejects(
          assembleScenario(store, {
            version: 1,
            label: 'not-strict',
            environments: [{ hash: kit.doc('environments/park.json') }],
            entities: [{ hash: kit.doc('entities/bob.json') }],
            subjects: [{ entity_id: 'bob', cognition_profile_ref: profile }],
          }),
          'SCENARIO_INVALID',
        );
        const problems = (d.problems as Array<{ code: string; path: string; message: string }>).filter(
          (p) => p.code === 'TOOL_SCHEMA_NOT_STRICT',
        );
        assert.equal(problems.length, 1, JSON.stringify(d.problems));
        assert.match(problems[0]!.path, /\/available_tools\/0\/arguments_schema_ref$/);
        assert.match(
          problems[0]!.message,
          /^\/properties\/actor_id\/allOf: .*OpenAI strict mode refuses allOf/,
        );
      } finally {
        await kit.close();
      }
    });
  });

  test('list_uses_of answers which components reference a hash', async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startParkKit(store);
      try {
        const weather = await listUsesOf(store, kit.doc('sources/weather.json'));
        assert.deepEqual(weather.used_by, [
          { kind: 'cognition_workflow', hash: kit.doc('workflows/bob.json') },
        ]);
        const wf = await listUsesOf(store, kit.doc('workflows/bob.json'));
        assert.deepEqual(wf.used_by, [
          { kind: 'cognition_profile', hash: kit.doc('profiles/park-visitor.json') },
        ]);
        const profile = await listUsesOf(store, kit.doc('profiles/ant.json'));
        assert.deepEqual(profile.used_by, [{ kind: 'scenario', hash: kit.bundle.scenario_hash }]);
      } finally {
        await kit.close();
      }
    });
  });
});
