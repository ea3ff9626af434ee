/**
 * Model-content retries (seed 004 D13/D14, Phase F): one retry lane through the engine — same
 * node, source and contract, corrective context appended, each attempt a new LLM invocation —
 * and loud failures for what is not the model's content.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { strictSubsetViolations } from '../../src/core/strict-schema.ts';
import { getWorld } from '../../src/runtimes/world/index.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { recordingTransactions } from '../../src/testing/recording-store.ts';
import { startParkKit } from '../../src/testing/world-kit.ts';
import { count, finalPatch, invocationsOf, toolCall } from './helpers.ts';

const antOnly = (kit: Awaited<ReturnType<typeof startParkKit>>) =>
  kit.variant({ subjects: [{ entity_id: 'ant', profile: kit.doc('profiles/ant.json') }] });
/** A world of Bob alone (`w`), and one turn of it. */
const bobTurn = async (kit: Awaited<ReturnType<typeof startParkKit>>) => {
  const bobOnly = await kit.variant({
    subjects: [{ entity_id: 'bob', profile: kit.doc('profiles/park-visitor.json') }],
  });
  await kit.world('w', bobOnly);
  return kit.runtime.runTurn({ world_slug: 'w' });
};
const gens = (rows: Array<Record<string, unknown>>) =>
  rows.filter((r) => r.invocation_kind === 'llm_generation');

describeEachStore('world model-content retries', (factory) => {
  test('non-JSON, then an inapplicable patch, then a valid one: three invocations of one node, same contract', async () => {
    await factory.withStore(async ({ store }) => {
      const script = {
        rules: [
          { match: { call: 1 }, reply: { text: 'I think the ant should eat.' } },
          {
            match: { call: 2 },
            reply: finalPatch('The Ant eats.', [{ op: 'set_entity_state', entity_id: 'Ant', state: 'fed' }]),
          },
        ],
        default: finalPatch('The ant eats.', [{ op: 'set_entity_state', entity_id: 'ant', state: 'fed' }]),
      };
      const kit = await startParkKit(store, { script });
      try {
        await kit.world('w', await antOnly(kit));
        const r = await kit.runtime.runTurn({ world_slug: 'w' });
        assert.equal(r.status, 'committed', JSON.stringify(r.failure));
        const g = gens(await invocationsOf(store, r.attempt_id));
        assert.deepEqual(
          g.map((x) => x.logical_generation_attempt),
          [1, 2, 3],
        );
        assert.deepEqual(
          g.map((x) => x.model_output_kind),
          ['invalid', 'invalid', 'final_patch'],
        );
        assert.equal(g[0]!.failure_class, 'non_json');
        assert.ok(
          g.every(
            (x) =>
              x.workflow_node_id === 'act' &&
              x.source_hash === g[0]!.source_hash &&
              x.output_schema_hash === g[0]!.output_schema_hash,
          ),
        );
        assert.equal(new Set(g.map((x) => x.llm_call_id)).size, 3, 'each attempt its own LLM call');
        const kinds = await store.all<{ model_output_kind: string }>(
          'SELECT model_output_kind FROM llm_calls WHERE llm_call_id IN (?, ?, ?) ORDER BY started_at, llm_call_id',
          g.map((x) => String(x.llm_call_id)),
        );
        assert.deepEqual(kinds.map((k) => k.model_output_kind).sort(), ['final_patch', 'invalid', 'invalid']);
        // No degradation: every attempt still sent response_format; retries carry corrective context.
        assert.ok(kit.model.requests.every((q) => q.body.response_format !== undefined));
        assert.match(JSON.stringify(kit.model.requests[2]!.body.messages), /unknown entity \\"Ant\\"/);
        assert.equal((await getWorld(store, { world_slug: 'w' })).entities.ant!.state, 'fed');
      } finally {
        await kit.close();
      }
    });
  });

  test('a reply cut off at the token limit is retried, told it was cut off (not that it was not JSON)', async () => {
    await factory.withStore(async ({ store }) => {
      const script = {
        rules: [
          {
            match: { call: 1 },
            reply: { text: '{"kind":"final_patch","tool_call":null,"pa', finish_reason: 'length' },
          },
        ],
        default: finalPatch('The ant eats.', [{ op: 'set_entity_state', entity_id: 'ant', state: 'fed' }]),
      };
      const kit = await startParkKit(store, { script });
      try {
        await kit.world('w', await antOnly(kit));
        const r = await kit.runtime.runTurn({ world_slug: 'w' });
        assert.equal(r.status, 'committed', JSON.stringify(r.failure));
        const g = gens(await invocationsOf(store, r.attempt_id));
        assert.deepEqual(
          g.map((x) => [x.failure_class ?? null, x.model_output_kind]),
          [
            ['truncated', 'invalid'],
            [null, 'final_patch'],
          ],
        );
        const retried = JSON.stringify(kit.model.requests[1]!.body.messages);
        assert.match(retried, /cut off/);
        assert.doesNotMatch(retried, /not JSON/);
      } finally {
        await kit.close();
      }
    });
  });

  test('an unknown tool and bad arguments are retried; no tool runs for them', async () => {
    await factory.withStore(async ({ store }) => {
      const script = {
        rules: [
          { match: { subject: 'bob', call: 1 }, reply: toolCall('teleport', { to: 'moon' }) },
          {
            match: { subject: 'bob', call: 2 },
            reply: toolCall('buy_candy', { actor_id: 'bob', button: 'Z' }),
          },
        ],
        default: finalPatch('Nothing happens.'),
      };
      const kit = await startParkKit(store, { script });
      try {
        await kit.world('park');
        const r = await kit.runtime.runTurn({ world_slug: 'park' });
        assert.equal(r.status, 'committed', JSON.stringify(r.failure));
        const rows = await invocationsOf(store, r.attempt_id);
        assert.equal(rows.filter((x) => x.invocation_kind === 'model_elected_tool').length, 0);
        assert.deepEqual(
          gens(rows)
            .filter((x) => x.workflow_subject_entity_id === 'bob')
            .map((x) => x.model_output_kind),
          ['invalid', 'invalid', 'final_patch'],
        );
        // Bob's before-subject source runs in his first generation, once for all its attempts,
        // and every attempt's prompt carries its result.
        assert.equal(rows.filter((x) => x.ambient_source_id === 'bob_phone_inbox').length, 1);
        const bobs = kit.model.requests.filter((q) => q.headers['x-noema-subject'] === 'bob');
        assert.equal(bobs.length, 3);
        for (const q of bobs) assert.match(JSON.stringify(q.body.messages), /inbox/);
      } finally {
        await kit.close();
      }
    });
  });

  test('the ToolLoopOutput sent is in the strict subset; bounds it lacks are judged on the output and retried', async () => {
    await factory.withStore(async ({ store }) => {
      const script = {
        rules: [
          // `turn` has `minimum: 1` in the tool's schema, which the schema sent cannot say.
          {
            match: { subject: 'bob', call: 1 },
            reply: toolCall('use_drinking_fountain', { actor_id: 'bob', turn: 0 }),
          },
          // `narration` has `maxLength: 20000` in the WorldPatch schema.
          { match: { subject: 'bob', call: 2 }, reply: finalPatch('x'.repeat(20_001)) },
        ],
        default: finalPatch('Nothing happens.'),
      };
      const kit = await startParkKit(store, { script });
      try {
        await kit.world('park');
        const r = await kit.runtime.runTurn({ world_slug: 'park' });
        assert.equal(r.status, 'committed', JSON.stringify(r.failure));
        const rows = await invocationsOf(store, r.attempt_id);
        assert.equal(rows.filter((x) => x.invocation_kind === 'model_elected_tool').length, 0);
        const bob = gens(rows).filter((x) => x.workflow_subject_entity_id === 'bob');
        assert.deepEqual(
          bob.map((x) => [x.status, x.model_output_kind]),
          [
            ['succeeded', 'invalid'],
            ['succeeded', 'invalid'],
            ['succeeded', 'final_patch'],
          ],
        );
        const sent = kit.model.requests.find((q) => q.headers['x-noema-subject'] === 'bob')!.body as {
          response_format: { json_schema: { schema: unknown } };
        };
        assert.deepEqual(strictSubsetViolations(sent.response_format.json_schema.schema), []);
        const prompts = kit.model.requests.filter((q) => q.headers['x-noema-subject'] === 'bob');
        assert.match(JSON.stringify(prompts[1]!.body.messages), /turn must be >= 1/);
        assert.match(JSON.stringify(prompts[2]!.body.messages), /narration must NOT have more than 20000/);
      } finally {
        await kit.close();
      }
    });
  });

  test('max_generation_attempts exhausted fails the attempt: no world state, every invocation kept', async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startParkKit(store, { script: { rules: [], default: { text: 'never JSON' } } });
      try {
        await kit.world('w', await antOnly(kit));
        const r = await kit.runtime.runTurn({ world_slug: 'w' });
        assert.equal(r.status, 'failed');
        assert.equal(r.failure?.code, 'GENERATION_FAILED');
        assert.equal(r.failure?.subject_entity_id, 'ant');
        assert.equal(gens(await invocationsOf(store, r.attempt_id)).length, 3);
        assert.equal((await getWorld(store, { world_slug: 'w' })).head_turn, 0);
        assert.equal(await count(store, 'SELECT COUNT(*) AS n FROM llm_calls'), 3);
      } finally {
        await kit.close();
      }
    });
  });

  test('a refused response_format fails loudly: one invocation, no retry, no prompt-only fallback', async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startParkKit(store, {
        script: { reject_response_format: true, rules: [], default: finalPatch('x') },
      });
      try {
        await kit.world('w', await antOnly(kit));
        const r = await kit.runtime.runTurn({ world_slug: 'w' });
        assert.equal(r.status, 'failed');
        assert.equal(r.failure?.code, 'SOURCE_RESPONSE_FORMAT_REJECTED');
        const g = gens(await invocationsOf(store, r.attempt_id));
        assert.equal(g.length, 1);
        assert.equal(g[0]!.failure_class, 'response_format_rejected');
        assert.equal(kit.model.requests.length, 1);
      } finally {
        await kit.close();
      }
    });
  });

  test('the elected tool runs at the start of the next generation, once, however often that generation is retried', async () => {
    await factory.withStore(async ({ store }) => {
      const script = {
        rules: [
          { match: { call: 1 }, reply: toolCall('send_text', { to: 'alice', body: 'hi', turn: null }) },
          { match: { call: 2 }, reply: { text: 'not JSON' } },
        ],
        default: finalPatch('Bob texted Alice.'),
      };
      const kit = await startParkKit(store, { script });
      try {
        const r = await bobTurn(kit);
        assert.equal(r.status, 'committed', JSON.stringify(r.failure));
        const rows = await invocationsOf(store, r.attempt_id);
        assert.equal(rows.filter((x) => x.tool_name === 'send_text').length, 1, 'the tool ran once');
        assert.deepEqual(
          gens(rows).map((x) => `${x.tool_loop_round}/${x.logical_generation_attempt}`),
          ['0/1', '1/1', '1/2'],
        );
        for (const q of kit.model.requests.slice(1))
          assert.match(JSON.stringify(q.body.messages), /Tool result for send_text/);
        // Steps: turn ambient, generation 1 (with bob's ambient source), generation 2 (with the tool,
        // retried within its step), the commit — no step of its own for the ambient source or the tool.
        const { run_id } = (await store.get<{ run_id: string }>(
          'SELECT run_id FROM world_attempts WHERE attempt_id = ?',
          [r.attempt_id],
        )) as { run_id: string };
        assert.equal((await kit.runtime.engine.getRun(run_id)).step, 4);
      } finally {
        await kit.close();
      }
    });
  });

  test('a generation that elects a tool has no commit of its own: its step commits with the tool call’s running record', async () => {
    await factory.withStore(async ({ store: raw }) => {
      const { store, txs } = recordingTransactions(raw);
      const script = {
        rules: [
          { match: { call: 1 }, reply: toolCall('send_text', { to: 'alice', body: 'hi', turn: null }) },
        ],
        default: finalPatch('Bob texted Alice.'),
      };
      const kit = await startParkKit(store, { script });
      try {
        const r = await bobTurn(kit);
        assert.equal(r.status, 'committed', JSON.stringify(r.failure));
        const journal = (t: string[]) =>
          t.filter((sql) => sql.startsWith('INSERT INTO engine_journal')).length;
        // The one commit that creates a contract is the tool's: ambient sources are invocations, not
        // contracts. Where the run's events go to other processes (PostgreSQL), a timed flush of its
        // progress events is a transaction of the run too, and under load it may come first and carry
        // the step: then it is the one right before.
        const created = txs.filter((t) => t.some((sql) => sql.startsWith('INSERT INTO engine_contracts')));
        assert.equal(created.length, 1, JSON.stringify(created));
        const rows = created.map(journal);
        const tool = txs.indexOf(created.at(-1)!);
        const flushedFirst = raw.capabilities.supportsListenNotify && rows.at(-1) === 0;
        const carrier = flushedFirst ? txs[tool - 1]! : txs[tool]!;
        assert.equal(journal(carrier), 1, JSON.stringify(txs.slice(Math.max(0, tool - 2), tool + 1)));
        // A flush writes what it carries and nothing of its own: the step's journal row (a carried
        // write that a lost answer may have landed is checked first) — no contract or invocation is
        // created by it.
        if (flushedFirst)
          assert.ok(
            carrier.every((sql) => /^(INSERT INTO engine_journal|SELECT)\b/.test(sql)),
            `the transaction before the tool call is a flush carrying the step: ${JSON.stringify(carrier)}`,
          );
      } finally {
        await kit.close();
      }
    });
  });

  test("each generation's model_output_kind is written with its finished row, by no statement of its own", async () => {
    await factory.withStore(async ({ store: raw }) => {
      const { store, txs } = recordingTransactions(raw);
      const script = {
        rules: [
          { match: { call: 1 }, reply: { text: 'Bob wonders what to do.' } },
          { match: { call: 2 }, reply: toolCall('send_text', { to: 'alice', body: 'hi', turn: null }) },
        ],
        default: finalPatch('Bob texted Alice.'),
      };
      const kit = await startParkKit(store, { script });
      try {
        const r = await bobTurn(kit);
        assert.equal(r.status, 'committed', JSON.stringify(r.failure));
        const g = gens(await invocationsOf(raw, r.attempt_id));
        assert.deepEqual(
          g.map((x) => x.model_output_kind),
          ['invalid', 'tool_call', 'final_patch'],
        );
        // Named as each call finished: no UPDATE marks them afterwards (the turn's commit included).
        assert.deepEqual(
          txs.flat().filter((sql) => /SET model_output_kind/.test(sql)),
          [],
        );
      } finally {
        await kit.close();
      }
    });
  });

  test('an output holding a secret is judged as the call returns it (redacted), and applied so', async () => {
    await factory.withStore(async ({ store }) => {
      const secret = 'sk-park-secret-0123456789';
      const script = { rules: [], default: finalPatch(`Bob whispers ${secret}.`) };
      const kit = await startParkKit(store, { script, env: { PARK_API_KEY: secret } });
      try {
        const r = await bobTurn(kit);
        assert.equal(r.status, 'committed', JSON.stringify(r.failure));
        assert.equal(r.patches.length, 1);
        assert.ok(!r.patches[0]!.narration.includes(secret), r.patches[0]!.narration);
        const g = gens(await invocationsOf(store, r.attempt_id));
        assert.deepEqual(
          g.map((x) => x.model_output_kind),
          ['final_patch'],
        );
      } finally {
        await kit.close();
      }
    });
  });

  test('an ambient entry names the invocation this process made without reading it back', async () => {
    await factory.withStore(async ({ store: raw }) => {
      const { store, reads } = recordingTransactions(raw);
      const kit = await startParkKit(store, { script: { rules: [], default: finalPatch('Bob waits.') } });
      try {
        const r = await bobTurn(kit);
        assert.equal(r.status, 'committed', JSON.stringify(r.failure));
        // A new attempt has made no call: its first claim reads no invocation back.
        assert.deepEqual(
          reads.filter((sql) => /FROM source_invocations/.test(sql)),
          [],
        );
        const { run_id } = (await store.get<{ run_id: string }>(
          'SELECT run_id FROM world_attempts WHERE attempt_id = ?',
          [r.attempt_id],
        )) as { run_id: string };
        const entries = (
          (await kit.runtime.engine.getRun(run_id)).state.ambient as unknown[]
        ).flat() as Array<{
          ambient_source_id: string;
          source_invocation_id: string;
        }>;
        const rows = (await invocationsOf(store, r.attempt_id)).filter((x) => x.ambient_source_id);
        assert.ok(entries.length > 0);
        assert.deepEqual(
          entries.map((e) => `${e.ambient_source_id} ${e.source_invocation_id}`).sort(),
          rows.map((x) => `${x.ambient_source_id} ${x.source_invocation_id}`).sort(),
        );
      } finally {
        await kit.close();
      }
    });
  });

  test('a tool call past max_tool_calls fails the attempt', async () => {
    await factory.withStore(async ({ store }) => {
      const script = {
        rules: [
          {
            match: { subject: 'bob' },
            reply: toolCall('send_text', { to: 'alice', body: 'hi', turn: null }),
          },
        ],
        default: finalPatch('x'),
      };
      const kit = await startParkKit(store, { script });
      try {
        await kit.world('park');
        const r = await kit.runtime.runTurn({ world_slug: 'park' });
        assert.equal(r.status, 'failed');
        assert.equal(r.failure?.code, 'MAX_TOOL_CALLS_EXHAUSTED');
        const rows = await invocationsOf(store, r.attempt_id);
        assert.equal(rows.filter((x) => x.tool_name === 'send_text').length, 3);
        assert.equal((await getWorld(store, { world_slug: 'park' })).head_turn, 0);
        // The accepted generations are marked by the failure record, the last one at once.
        const gens = rows.filter(
          (x) => x.invocation_kind === 'llm_generation' && x.workflow_subject_entity_id === 'bob',
        );
        assert.equal(gens.length, 4);
        assert.deepEqual(
          gens.map((g) => g.model_output_kind),
          gens.map(() => 'tool_call'),
        );
        const calls = await store.all<{ model_output_kind: string | null }>(
          `SELECT model_output_kind FROM llm_calls WHERE llm_call_id IN (${gens.map(() => '?').join(', ')})`,
          gens.map((g) => g.llm_call_id as string),
        );
        assert.deepEqual(
          calls.map((c) => c.model_output_kind),
          gens.map(() => 'tool_call'),
        );
      } finally {
        await kit.close();
      }
    });
  });
});
