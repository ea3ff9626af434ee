/**
 * Seed 004 Phase I Tests 1–7 and Smokes 1–8 end to end: the examples/park bundle, the scripted
 * model and the toy park services over real HTTP, on both stores.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { loadScript } from '../../src/dev/scripted-model/index.ts';
import { createWorldRuntime, getAttempt, getWorld, listAuditEvents } from '../../src/runtimes/world/index.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { PARK_SCRIPT, startParkKit } from '../../src/testing/world-kit.ts';
import { count, finalPatch, invocationsOf, toolCall } from './helpers.ts';

const ambient = (rows: Array<Record<string, unknown>>, id: string) =>
  rows.filter((r) => r.ambient_source_id === id);
const tools = (rows: Array<Record<string, unknown>>) =>
  rows.filter((r) => r.invocation_kind === 'model_elected_tool');

describeEachStore('park world (seed 004 Phase I)', (factory) => {
  test('Test 1 / Smoke 4: one weather invocation per turn, temperatures fall, the world changes only through patches', async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startParkKit(store);
      try {
        await kit.world('park');
        const temps: number[] = [];
        for (let turn = 1; turn <= 3; turn++) {
          const r = await kit.runtime.runTurn({ world_slug: 'park' });
          assert.equal(r.status, 'committed', JSON.stringify(r.failure));
          assert.equal(r.turn, turn);
          const rows = await invocationsOf(store, r.attempt_id);
          const weather = ambient(rows, 'park_weather');
          assert.equal(weather.length, 1);
          assert.equal(weather[0]!.status, 'succeeded');
          assert.equal((weather[0]!.request_json as { turn: number }).turn, turn);
          temps.push((weather[0]!.response_json as { temperature_f: number }).temperature_f);
          // Every changed entity was named by an accepted patch: no weather-to-world path.
          const before = await getWorld(store, { world_slug: 'park', turn: turn - 1 });
          const after = await getWorld(store, { world_slug: 'park', turn });
          const named = new Set(
            r.patches.flatMap((p) => p.effects.map((e) => (e as { entity_id?: string }).entity_id)),
          );
          for (const [id, e] of Object.entries(after.entities))
            if (JSON.stringify(e) !== JSON.stringify(before.entities[id]))
              assert.ok(named.has(id), `${id} changed without a patch`);
          assert.deepEqual(after.environments, before.environments);
        }
        assert.deepEqual(temps, [72, 64, 55]);
        // Bob's turn-3 generation saw the cold front in its context.
        const third = await getAttempt(store, {
          attempt_id: (await kit.runtime.runTurn({ world_slug: 'park' })).attempt_id,
        });
        assert.equal(third.status, 'committed');
        const w = await getWorld(store, { world_slug: 'park', turn: 3 });
        assert.equal(w.entities.bob?.state, 'cold and walking through the park');
      } finally {
        await kit.close();
      }
    });
  });

  test('Test 2 / Smoke 5: the PA is traced when empty and when it speaks; the announcement reaches the LLM context', async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startParkKit(store);
      try {
        await kit.world('park');
        const r1 = await kit.runtime.runTurn({ world_slug: 'park' });
        const r2 = await kit.runtime.runTurn({ world_slug: 'park' });
        const pa1 = ambient(await invocationsOf(store, r1.attempt_id), 'park_pa');
        const pa2 = ambient(await invocationsOf(store, r2.attempt_id), 'park_pa');
        assert.deepEqual(pa1[0]!.response_json, { announcements: [] });
        assert.equal(pa1[0]!.status, 'succeeded');
        assert.match(JSON.stringify(pa2[0]!.response_json), /east vending area is closed/);
        const bobTurn2 = kit.model.requests.filter(
          (q) => q.headers['x-noema-turn'] === '2' && q.headers['x-noema-subject'] === 'bob',
        );
        assert.ok(bobTurn2.length >= 1);
        assert.match(JSON.stringify(bobTurn2[0]!.body.messages), /east vending area is closed/);
        // The ant's workflow declares no PA: it does not see it.
        const antTurn2 = kit.model.requests.filter(
          (q) => q.headers['x-noema-turn'] === '2' && q.headers['x-noema-subject'] === 'ant',
        );
        assert.doesNotMatch(JSON.stringify(antTurn2[0]!.body.messages), /east vending area/);
        assert.equal(r2.patches.length, 2);
      } finally {
        await kit.close();
      }
    });
  });

  test("Test 3 / Smoke 6: Bob's phone inbox runs before Bob only, injects the spam, and Bob's patch reacts", async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startParkKit(store);
      try {
        await kit.world('park');
        await kit.runtime.runTurn({ world_slug: 'park' });
        const r2 = await kit.runtime.runTurn({ world_slug: 'park' });
        const inbox = ambient(await invocationsOf(store, r2.attempt_id), 'bob_phone_inbox');
        assert.equal(inbox.length, 1, 'runs for bob only, not for the ant');
        assert.equal(inbox[0]!.workflow_subject_entity_id, 'bob');
        assert.equal(inbox[0]!.invocation_kind, 'ambient_context');
        assert.match(JSON.stringify(inbox[0]!.response_json), /free candy coupons/);
        const bob = r2.patches.find((p) => p.subject_entity_id === 'bob')!;
        assert.match(JSON.stringify(bob.effects), /spam text/);
        const w = await getWorld(store, { world_slug: 'park' });
        assert.match(w.entities.bob!.memory!, /spam text about free candy coupons/);
        assert.equal(
          w.entities.bob_phone!.state,
          "in Bob's pocket, on silent",
          'the inbox itself changed nothing',
        );
      } finally {
        await kit.close();
      }
    });
  });

  test('Test 4 / Smoke 2: offered tools the model does not call are never invoked', async () => {
    await factory.withStore(async ({ store }) => {
      const script = {
        rules: [
          {
            match: { subject: 'bob' },
            reply: finalPatch('Bob ignores the vending machine and eats a candy bar from his pocket.', [
              { op: 'set_entity_state', entity_id: 'bob', state: 'eating a candy bar from his pocket' },
            ]),
          },
        ],
        default: finalPatch('The ant waits.'),
      };
      const kit = await startParkKit(store, { script });
      try {
        await kit.world('park');
        const r = await kit.runtime.runTurn({ world_slug: 'park' });
        assert.equal(r.status, 'committed');
        const rows = await invocationsOf(store, r.attempt_id);
        assert.equal(tools(rows).length, 0);
        assert.equal(
          kit.toys.requests.filter((q) => ['/buy_candy', '/use_drinking_fountain', '/send'].includes(q.path))
            .length,
          0,
        );
        // The tools were offered: the request lists them.
        const bob = kit.model.requests.find((q) => q.headers['x-noema-subject'] === 'bob')!;
        for (const name of ['buy_candy', 'use_drinking_fountain', 'send_text'])
          assert.match(JSON.stringify(bob.body.messages), new RegExp(name));
        assert.equal(
          (await getWorld(store, { world_slug: 'park' })).entities.bob!.state,
          'eating a candy bar from his pocket',
        );
      } finally {
        await kit.close();
      }
    });
  });

  test('Test 5 / Smoke 3: one buy_candy call, its result in the next generation, the world changed by the final patch', async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startParkKit(store);
      try {
        await kit.world('park');
        const r = await kit.runtime.runTurn({ world_slug: 'park' });
        const rows = await invocationsOf(store, r.attempt_id);
        const calls = tools(rows);
        assert.equal(calls.length, 1);
        const call = calls[0]!;
        assert.equal(call.tool_name, 'buy_candy');
        assert.equal(call.status, 'succeeded');
        assert.equal((call.response_json as { status: string }).status, 'dispensed');
        const gens = rows.filter(
          (x) => x.invocation_kind === 'llm_generation' && x.workflow_subject_entity_id === 'bob',
        );
        assert.equal(gens.length, 2);
        assert.equal(call.parent_source_invocation_id, gens[0]!.source_invocation_id);
        assert.deepEqual([gens[0]!.tool_loop_round, gens[1]!.tool_loop_round], [0, 1]);
        assert.deepEqual(
          [gens[0]!.model_output_kind, gens[1]!.model_output_kind],
          ['tool_call', 'final_patch'],
        );
        assert.ok(typeof gens[1]!.llm_call_id === 'string');
        assert.ok(
          Number(gens[0]!.invocation_seq) < Number(call.invocation_seq) &&
            Number(call.invocation_seq) < Number(gens[1]!.invocation_seq),
        );
        const second = kit.model.requests.filter((q) => q.headers['x-noema-subject'] === 'bob')[1]!;
        assert.match(JSON.stringify(second.body.messages), /A candy bar was dispensed/);
        assert.equal(
          (await getWorld(store, { world_slug: 'park' })).entities.vending_machine!.state,
          'empty',
        );
      } finally {
        await kit.close();
      }
    });
  });

  test('Test 6: two agents, one candy bar — dispensed then empty, both durable, both patches applied', async () => {
    await factory.withStore(async ({ store }) => {
      const buy = (who: string) =>
        toolCall('buy_candy', { actor_id: who, machine_id: 'vending_machine', button: 'C' });
      const script = {
        rules: [
          {
            match: { subject: 'bob', last_message_contains: 'dispensed' },
            reply: finalPatch('Bob gets the candy bar.', [
              { op: 'set_entity_state', entity_id: 'bob', state: 'holding a candy bar' },
              { op: 'set_entity_state', entity_id: 'vending_machine', state: 'empty' },
            ]),
          },
          {
            match: { subject: 'alice', last_message_contains: '"status":"empty"' },
            reply: finalPatch('Nothing comes out for Alice.', [
              {
                op: 'append_entity_memory',
                entity_id: 'alice',
                content: 'I tried the vending machine, but it was empty.',
              },
            ]),
          },
          { match: { subject: 'bob' }, reply: buy('bob') },
          { match: { subject: 'alice' }, reply: buy('alice') },
        ],
      };
      const kit = await startParkKit(store, { script });
      try {
        const { putEntity } = await import('../../src/runtimes/world/index.ts');
        const alice = await putEntity(store, {
          version: 1,
          entity_id: 'alice',
          kind: 'agent',
          environment_label: 'park',
          state: 'hungry, next to Bob',
          memory: '',
        });
        const visitor = kit.doc('profiles/park-visitor.json');
        const scenario = await kit.variant({
          subjects: [
            { entity_id: 'bob', profile: visitor },
            { entity_id: 'alice', profile: visitor },
          ],
          extraEntities: [alice.hash],
        });
        await kit.world('two', scenario);
        const r = await kit.runtime.runTurn({ world_slug: 'two' });
        assert.equal(r.status, 'committed', JSON.stringify(r.failure));
        const calls = tools(await invocationsOf(store, r.attempt_id));
        assert.deepEqual(
          calls.map((c) => [c.workflow_subject_entity_id, (c.response_json as { status: string }).status]),
          [
            ['bob', 'dispensed'],
            ['alice', 'empty'],
          ],
        );
        assert.deepEqual(
          r.patches.map((p) => p.subject_entity_id),
          ['bob', 'alice'],
        );
        const w = await getWorld(store, { world_slug: 'two' });
        assert.equal(w.entities.vending_machine!.state, 'empty');
        assert.match(w.entities.alice!.memory!, /empty/);
      } finally {
        await kit.close();
      }
    });
  });

  test('Test 7 / Smoke 7: Bob and the ant change one committed turn with two patches and their own audit events', async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startParkKit(store);
      try {
        await kit.world('park');
        const r = await kit.runtime.runTurn({ world_slug: 'park' });
        assert.deepEqual(
          r.patches.map((p) => [p.patch_seq, p.subject_entity_id]),
          [
            [1, 'bob'],
            [2, 'ant'],
          ],
        );
        const w = await getWorld(store, { world_slug: 'park' });
        assert.equal(w.turn, 1);
        assert.equal(w.entities.bob!.state, 'holding a candy bar');
        assert.equal(w.entities.vending_machine!.state, 'empty');
        assert.equal(w.entities.ant!.state, 'fed, standing where the crumb was');
        assert.equal(w.entities.crumb!.state, 'gone');
        assert.equal(
          await count(store, "SELECT COUNT(*) AS n FROM world_turns WHERE world_slug = 'park'"),
          2,
          'turn 0 and one committed turn',
        );
        const events = (await listAuditEvents(store, { world_slug: 'park', turn: 1 })).items;
        const applied = events.filter((e) => e.event_type === 'world_patch_applied');
        assert.deepEqual(
          applied.map((e) => e.patch_seq),
          [1, 2],
        );
        assert.deepEqual(applied[1]!.touched, [
          { kind: 'entity', id: 'ant', ops: ['set_entity_state'] },
          { kind: 'entity', id: 'crumb', ops: ['set_entity_state'] },
        ]);
        assert.ok(
          applied.every(
            (e) => typeof e.source_invocation_id === 'string' && typeof e.response_source_hash === 'string',
          ),
        );
        const detail = await getAttempt(store, { attempt_id: r.attempt_id });
        assert.equal(detail.status, 'committed');
        assert.equal(detail.source_invocation_count, detail.source_invocations.length);
        assert.equal(
          detail.last_source_invocation_id,
          detail.source_invocations.at(-1)!.source_invocation_id,
        );
        assert.deepEqual(detail.patches[0]!.transitions[0], {
          op: 'set_entity_state',
          target: { entity_id: 'bob' },
          state_before: 'hungry, standing near the vending machine, with $2 and a phone in his pocket',
          state_after: 'holding a candy bar',
        });
      } finally {
        await kit.close();
      }
    });
  });

  test('Smoke 1: a one-agent LLM-only workflow (no tools, no ambient) emits a WorldPatch and commits', async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startParkKit(store);
      try {
        const scenario = await kit.variant({
          subjects: [{ entity_id: 'ant', profile: kit.doc('profiles/ant.json') }],
        });
        await kit.world('ant-only', scenario);
        const r = await kit.runtime.runTurn({ world_slug: 'ant-only' });
        assert.equal(r.status, 'committed');
        const rows = await invocationsOf(store, r.attempt_id);
        assert.deepEqual(
          rows.map((x) => x.invocation_kind),
          ['llm_generation'],
        );
        assert.equal((await getWorld(store, { world_slug: 'ant-only' })).entities.crumb!.state, 'gone');
      } finally {
        await kit.close();
      }
    });
  });

  test('Smoke 8: a non-JSON ambient source fails the attempt before commit; the trace keeps the failure; the turn is retried', async () => {
    await factory.withStore(async ({ store }) => {
      const bad = createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('the PA speaker crackles');
      });
      await new Promise<void>((r) => bad.listen(0, '127.0.0.1', r));
      const url = `http://127.0.0.1:${(bad.address() as AddressInfo).port}`;
      const kit = await startParkKit(store, { env: { NOEMA_TOY_PA_URL: url } });
      try {
        await kit.world('park');
        const r = await kit.runtime.runTurn({ world_slug: 'park' });
        assert.equal(r.status, 'failed');
        assert.equal(r.turn, 1);
        assert.equal(r.failure?.code, 'AMBIENT_SOURCE_FAILED');
        assert.ok(r.failure?.source_invocation_id);
        const rows = await invocationsOf(store, r.attempt_id);
        const pa = ambient(rows, 'park_pa')[0]!;
        assert.equal(pa.status, 'failed');
        assert.equal(pa.failure_class, 'non_json');
        assert.equal(pa.response_text, 'the PA speaker crackles');
        assert.equal(pa.source_invocation_id, r.failure?.source_invocation_id);
        const w = await getWorld(store, { world_slug: 'park' });
        assert.equal(w.head_turn, 0);
        assert.equal(await count(store, 'SELECT COUNT(*) AS n FROM world_patches'), 0);
        assert.equal((await getAttempt(store, { attempt_id: r.attempt_id })).status, 'failed');
        // Fixed configuration: the next run_turn tries turn 1 again and commits it.
        const good = createWorldRuntime(store, { env: { ...kit.env, NOEMA_TOY_PA_URL: kit.toys.url } });
        try {
          const again = await good.runTurn({ world_slug: 'park' });
          assert.equal(again.status, 'committed');
          assert.equal(again.turn, 1);
        } finally {
          await good.close();
        }
      } finally {
        await kit.close();
        await new Promise((r) => bad.close(r));
      }
    });
  });

  test('the park script used by the docs parses', () => {
    assert.ok(loadScript(PARK_SCRIPT).rules.length > 0);
  });
});
