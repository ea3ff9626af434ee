/**
 * A participant that writes with the run's end (CommitParticipant.stop) is called in the transaction
 * that ends the run in this process — completed by its last step or at its first frontier, failed by
 * a node — with the state and contracts that transaction leaves, whether or not it holds anything;
 * what it writes commits with the run's end, and goes back with it when that transaction rolls back.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Store } from '../store/store.ts';
import { describeEachStore } from '../testing/each-store.ts';
import { createEngine } from './create-engine.ts';
import type { CommitParticipant, GraphSpec, NodeType, RunStop } from './engine.ts';

/** Steps `again` until step 2, then ends with a new contract of its own (left PENDING). */
const step: NodeType<null> = {
  type: 'stop_step',
  execute: (ctx) =>
    ctx.step >= 2
      ? {
          kind: 'ok',
          route: 'done',
          writes: { note: `ended at ${ctx.step}` },
          contracts: [{ action_type: 'later', payload: { n: ctx.step } }],
        }
      : { kind: 'ok', route: 'again' },
};

const failing: NodeType<null> = {
  type: 'stop_fail',
  execute: () => ({ kind: 'fail', code: 'INVALID_INPUT', message: 'no' }),
};

const graph: GraphSpec = {
  entry: 'a',
  channels: { note: { reducer: 'value' } },
  nodes: [
    { id: 'a', type: 'stop_step' },
    { id: 'end', type: 'terminal' },
  ],
  connectors: [
    { from: 'a', to: 'a', route: 'again' },
    { from: 'a', to: 'end', route: 'done' },
  ],
};

const failingGraph: GraphSpec = {
  entry: 'f',
  nodes: [
    { id: 'f', type: 'stop_fail' },
    { id: 'end', type: 'terminal' },
  ],
  connectors: [{ from: 'f', to: 'end' }],
};

/** The run's start is the terminal: it completes at its first frontier, executing nothing. */
const emptyGraph: GraphSpec = { entry: 'end', nodes: [{ id: 'end', type: 'terminal' }], connectors: [] };

interface Seen {
  stop: RunStop;
  /** The run's status read inside the transaction `stop` was called in. */
  statusInTx: string | null;
  committed: boolean;
  rolledBack: boolean;
  /** Its own statements were refused: the database had aborted the transaction (its fence lost). */
  refused: boolean;
}

/** A participant holding nothing to `join`, marking each stop in a table of its own. */
function stopper(run_id: () => string): {
  participant: CommitParticipant;
  seen: Seen[];
  joins: () => number;
} {
  const seen: Seen[] = [];
  let joins = 0;
  const participant: CommitParticipant = {
    pending: () => false,
    async join() {
      joins++;
      return null;
    },
    async stop(tx, stop) {
      const s: Seen = { stop, statusInTx: null, committed: false, rolledBack: false, refused: false };
      seen.push(s);
      try {
        const row = await tx.get<{ status: string }>('SELECT status FROM engine_runs WHERE run_id = ?', [
          run_id(),
        ]);
        await tx.run('INSERT INTO stop_marks (run_id, status) VALUES (?, ?)', [run_id(), stop.status]);
        s.statusInTx = row!.status;
      } catch (err) {
        s.refused = true;
        throw err;
      }
      return {
        committed: () => {
          s.committed = true;
        },
        rolledBack: () => {
          s.rolledBack = true;
        },
      };
    },
  };
  return { participant, seen, joins: () => joins };
}

async function marks(store: Store, run_id: string): Promise<string[]> {
  const rows = await store.all<{ status: string }>('SELECT status FROM stop_marks WHERE run_id = ?', [
    run_id,
  ]);
  return rows.map((r) => r.status);
}

describeEachStore('engine: a participant writing with the run’s end', (factory) => {
  const withEngine = (
    fn: (store: Store, engine: ReturnType<typeof createEngine>) => Promise<void>,
  ): Promise<void> =>
    factory.withStore(async ({ store }) => {
      await store.run('CREATE TABLE stop_marks (run_id TEXT NOT NULL, status TEXT NOT NULL)');
      const engine = createEngine(store, { fanOut: false });
      engine.register(step as NodeType<never>);
      engine.register(failing as NodeType<never>);
      await fn(store, engine);
    });

  test('a run its last step completes: stop is called in that step’s transaction with the final state and contracts, and commits with it', async () => {
    await withEngine(async (store, engine) => {
      const { run_id } = await engine.createRun(graph);
      const { participant, seen, joins } = stopper(() => run_id);
      const unsubscribe = await engine.subscribe(run_id, () => {}, { commitWith: participant });
      const outcome = await engine.continueRun(run_id);
      await unsubscribe();
      assert.equal(outcome.status, 'completed');
      assert.equal(seen.length, 1);
      const s = seen[0]!;
      assert.equal(s.stop.status, 'completed');
      assert.equal(s.stop.error, null);
      assert.equal(s.statusInTx, 'completed', 'called in the transaction that ends the run');
      assert.equal(s.stop.state.note, 'ended at 2');
      // The contract the last step created is in it, though the step's own list takes it after the commit.
      assert.deepEqual(
        s.stop.contracts.map((c) => [c.action_type, c.status]),
        [['later', 'PENDING']],
      );
      assert.deepEqual(s.stop.contracts, outcome.final!.contracts);
      assert.ok(s.committed && !s.rolledBack);
      assert.equal(joins(), 0, 'nothing held: join is not called');
      assert.deepEqual(await marks(store, run_id), ['completed']);
    });
  });

  test('a run that completes at its first frontier and one a node fails: stop is called in the transaction that ends each', async () => {
    await withEngine(async (store, engine) => {
      for (const [spec, status] of [
        [emptyGraph, 'completed'],
        [failingGraph, 'failed'],
      ] as const) {
        const { run_id } = await engine.createRun(spec);
        const { participant, seen } = stopper(() => run_id);
        const unsubscribe = await engine.subscribe(run_id, () => {}, { commitWith: participant });
        const outcome = await engine.continueRun(run_id);
        await unsubscribe();
        assert.equal(outcome.status, status);
        assert.equal(seen.length, 1, status);
        assert.equal(seen[0]!.stop.status, status);
        assert.equal(seen[0]!.statusInTx, status);
        if (status === 'failed') assert.equal(seen[0]!.stop.error?.code, 'INVALID_INPUT');
        assert.ok(seen[0]!.committed);
        assert.deepEqual(await marks(store, run_id), [status]);
      }
    });
  });

  test('when the run’s end rolls back (its lease taken meanwhile), what stop wrote goes back with it and is told so', async () => {
    await factory.withStore(async ({ store }) => {
      await store.run('CREATE TABLE stop_marks (run_id TEXT NOT NULL, status TEXT NOT NULL)');
      const engine = createEngine(store, { fanOut: false });
      // The last step's node hands the lease to another owner before its step commits: the run's
      // fenced end then writes nothing, and its transaction rolls back.
      const stealing: NodeType<null> = {
        type: 'stop_step',
        execute: async (ctx) => {
          if (ctx.step < 2) return { kind: 'ok', route: 'again' };
          await store.run("UPDATE engine_runs SET lease_owner = 'someone-else' WHERE run_id = ?", [
            ctx.run_id,
          ]);
          return { kind: 'ok', route: 'done' };
        },
      };
      engine.register(stealing as NodeType<never>);
      const { run_id } = await engine.createRun(graph);
      const { participant, seen } = stopper(() => run_id);
      const unsubscribe = await engine.subscribe(run_id, () => {}, { commitWith: participant });
      const outcome = await engine.continueRun(run_id);
      await unsubscribe();
      assert.equal(outcome.status, 'running', 'the run goes on with its new owner');
      assert.equal(outcome.error?.code, 'LEASE_LOST');
      assert.equal(seen.length, 1, 'stop was called in the end that rolled back');
      // Told it rolled back, or (where the database checks the fence and aborted the transaction
      // before stop's statements ran) refused them: either way never told it committed.
      assert.ok(seen[0]!.rolledBack !== seen[0]!.refused, JSON.stringify(seen[0]));
      assert.ok(!seen[0]!.committed);
      assert.deepEqual(await marks(store, run_id), [], 'nothing of it committed');
      const row = await store.get<{ status: string }>('SELECT status FROM engine_runs WHERE run_id = ?', [
        run_id,
      ]);
      assert.equal(row!.status, 'running');
    });
  });
});
