/**
 * Creating a run of a graph already stored issues its writes — the run, its first attempt (created
 * claimed) and its input row — without waiting for any answer, so on PostgreSQL the transaction is
 * one round trip: nothing waits for the run's key, which the insert's answer tells before the
 * transaction settles. Pinned to PostgreSQL: round trips exist only where statements travel to a
 * server (`engine.graph-cache.test.ts` holds the statements and a taken id's CONFLICT on both stores).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachStore } from '../testing/each-store.ts';
import { countPgRoundTrips } from '../testing/pg-round-trips.ts';
import { createEngine } from './create-engine.ts';
import type { GraphSpec, NodeType } from './engine.ts';

// Before any store connects: a connection binds its client's `query` as it is handed out.
const { counts, lines } = countPgRoundTrips(true);

const echo: NodeType<null> = { type: 'create_trip_echo', execute: () => ({ kind: 'ok', output: 'done' }) };

const graph: GraphSpec = {
  entry: 'a',
  channels: { topic: { reducer: 'value' } },
  nodes: [
    { id: 'a', type: 'create_trip_echo' },
    { id: 'end', type: 'terminal' },
  ],
  connectors: [{ from: 'a', to: 'end' }],
};

describeEachStore('engine: a run created in one round trip', (factory) => {
  test('a run of a stored graph, created claimed with input, is one round trip; it then runs from its key', async (t) => {
    await factory.withStore(async ({ store }) => {
      if (!store.capabilities.supportsListenNotify) return t.skip('round trips are PostgreSQL’s');
      const engine = createEngine(store, { fanOut: false });
      engine.register(echo as NodeType<never>);
      try {
        await engine.createRun(graph, { input: { topic: 'first' } }); // stores the graph
        const [before, from] = [counts.roundTrips, lines.length];
        const { run_id } = await engine.createRun(graph, { input: { topic: 'printers' }, claim: true });
        assert.equal(
          counts.roundTrips - before,
          1,
          `BEGIN, the run, its attempt, its input and the COMMIT together:\n${lines.slice(from).join('\n')}`,
        );
        // Created claimed here: executed from the row createRun kept, whose key the answer told.
        const out = await engine.continueRun(run_id);
        assert.equal(out.status, 'completed', JSON.stringify(out));
        const run = await engine.getRun(run_id);
        assert.equal(run.state.topic, 'printers');
        const attempts = await store.all(
          'SELECT attempt FROM engine_run_attempts a JOIN engine_runs r ON r.run_pk = a.run_pk WHERE r.run_id = ?',
          [run_id],
        );
        assert.equal(attempts.length, 1, 'its first attempt, recorded at its creation');
      } finally {
        await engine.close();
      }
    });
  });
});
