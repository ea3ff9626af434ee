/** What `runTurn` answers for a committed turn, and what it reads to answer it. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createEngine, type GraphSpec, sourcesExecutor } from '../../src/engine/index.ts';
import { createWorldRuntime } from '../../src/runtimes/world/index.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { frozenThroughout } from '../../src/testing/frozen.ts';
import { recordingTransactions } from '../../src/testing/recording-store.ts';
import { startParkKit } from '../../src/testing/world-kit.ts';
import { finalPatch, toolCall } from './helpers.ts';

describeEachStore('world turn result', (factory) => {
  test("a turn committed by this process answers its patches without reading the run's journal back", async () => {
    await factory.withStore(async ({ store: raw }) => {
      const { store, txs, reads } = recordingTransactions(raw);
      const script = {
        rules: [
          { match: { call: 1 }, reply: toolCall('send_text', { to: 'alice', body: 'hi', turn: null }) },
        ],
        default: finalPatch('Bob texted Alice.', [
          { op: 'set_entity_state', entity_id: 'bob', state: 'texting' },
        ]),
      };
      const kit = await startParkKit(store, { script });
      try {
        const bobOnly = await kit.variant({
          subjects: [{ entity_id: 'bob', profile: kit.doc('profiles/park-visitor.json') }],
        });
        await kit.world('w', bobOnly);
        const journalReads = () =>
          [...txs.flat(), ...reads].filter((sql) => /FROM engine_journal WHERE jid BETWEEN/.test(sql)).length;
        const before = journalReads();
        const r = await kit.runtime.runTurn({ world_slug: 'w' });
        assert.equal(r.status, 'committed', JSON.stringify(r.failure));
        // The run's journal is never read back: the engine that created the run builds its state from
        // the input it kept (nothing can have written the journal before its first claim), and the
        // answer is made from what this process committed.
        assert.equal(journalReads() - before, 0);
        const stored = await raw.all<{
          patch_seq: number | string;
          subject_entity_id: string;
          narration: string;
          effects_json: string;
        }>(
          'SELECT patch_seq, subject_entity_id, narration, effects_json FROM world_patches WHERE attempt_id = ? ORDER BY patch_seq',
          [r.attempt_id],
        );
        assert.deepEqual(
          r.patches,
          stored.map((p) => ({
            patch_seq: Number(p.patch_seq),
            subject_entity_id: p.subject_entity_id,
            narration: p.narration,
            effects: JSON.parse(p.effects_json) as unknown[],
          })),
        );
        assert.equal(r.patches[0]?.narration, 'Bob texted Alice.');
      } finally {
        await kit.close();
      }
    });
  });

  test("every turn of a world runs its scenario's one frozen turn graph, which the engine hashes once", async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startParkKit(store, { script: { rules: [], default: finalPatch('Bob waits.', []) } });
      const engine = createEngine(store, { actions: sourcesExecutor(store, { env: kit.env }) });
      const graphs: GraphSpec[] = [];
      const createRun = engine.createRun.bind(engine);
      engine.createRun = (graph, opts) => {
        graphs.push(graph);
        return createRun(graph, opts);
      };
      const runtime = createWorldRuntime(store, { env: kit.env, engine });
      try {
        const bobOnly = await kit.variant({
          subjects: [{ entity_id: 'bob', profile: kit.doc('profiles/park-visitor.json') }],
        });
        await kit.world('w', bobOnly);
        for (let turn = 0; turn < 2; turn++) {
          const r = await runtime.runTurn({ world_slug: 'w' });
          assert.equal(r.status, 'committed', JSON.stringify(r.failure));
        }
        assert.equal(graphs.length, 2);
        assert.equal(graphs[0], graphs[1], 'one graph object for both turns');
        assert.ok(frozenThroughout(graphs[0]), 'frozen, nested parts too');
        assert.equal(graphs[0]!.entry, 'turn.ambient');
      } finally {
        await runtime.close();
        await engine.close();
        await kit.close();
      }
    });
  });
});
