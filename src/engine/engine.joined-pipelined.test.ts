/**
 * A subscriber's own rows (SubscribeOptions.commitWith) are issued in a transaction of the run right
 * after the transaction's own statements, not once those have answered: one round trip where the
 * store pipelines. They still commit with it, and are told so.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Store, Transaction } from '../store/store.ts';
import { describeEachStore } from '../testing/each-store.ts';
import { createEngine } from './create-engine.ts';
import type { CommitParticipant, GraphSpec, NodeType } from './engine.ts';

const step: NodeType<null> = {
  type: 'joined_step',
  execute: (ctx) => (ctx.step >= 3 ? { kind: 'ok', route: 'done' } : { kind: 'ok', route: 'again' }),
};

const graph: GraphSpec = {
  entry: 'a',
  nodes: [
    { id: 'a', type: 'joined_step' },
    { id: 'end', type: 'terminal' },
  ],
  connectors: [
    { from: 'a', to: 'a', route: 'again' },
    { from: 'a', to: 'end', route: 'done' },
  ],
};

/**
 * `store` whose transactions count their statements issued and not yet answered: a statement's
 * promise until it settles; a write issued without waiting (`write`, `writeOne`), whose answer the
 * store awaits only behind the COMMIT, until its transaction has ended.
 */
function countingOutstanding(store: Store): { store: Store; outstanding: () => number } {
  let n = 0;
  const counted = (tx: Transaction, issued: { n: number }): Transaction =>
    new Proxy(tx, {
      get(t, k) {
        const v = Reflect.get(t, k);
        if (k === 'write' || k === 'writeOne' || k === 'writeReturning')
          return (...args: unknown[]) => {
            n++;
            issued.n++;
            return (v as (...a: unknown[]) => void).apply(t, args);
          };
        if (k !== 'run' && k !== 'get' && k !== 'all') return typeof v === 'function' ? v.bind(t) : v;
        return (sql: string, params?: never) => {
          n++;
          const p = (v as (s: string, p?: never) => Promise<unknown>).call(t, sql, params);
          const done = () => {
            n--;
          };
          p.then(done, done);
          return p;
        };
      },
    });
  const wrapped = new Proxy(store, {
    get(target, key) {
      if (key === 'transaction')
        return (fn: (tx: Transaction) => Promise<unknown>, options?: never) => {
          const issued = { n: 0 };
          return target
            .transaction((tx) => fn(counted(tx, issued)), options)
            .finally(() => {
              n -= issued.n;
            });
        };
      // Every commit through `transaction`, where the participants join.
      if (key === 'transactionSync' || key === 'runSync') return undefined;
      const v = Reflect.get(target, key);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
  return { store: wrapped, outstanding: () => n };
}

describeEachStore('engine: subscribers’ rows in the run’s transactions', (factory) => {
  test('a subscriber’s rows are issued while the transaction’s own statements are in flight, and commit with them', async () => {
    await factory.withStore(async ({ store: raw }) => {
      const { store, outstanding } = countingOutstanding(raw);
      const engine = createEngine(store, { fanOut: false });
      engine.register(step as NodeType<never>);
      const inFlightAtJoin: number[] = [];
      let committed = 0;
      const participant: CommitParticipant = {
        pending: () => true,
        async join(tx) {
          inFlightAtJoin.push(outstanding());
          await tx.get('SELECT 1 AS x');
          return { committed: () => void committed++, rolledBack: () => {} };
        },
      };
      const { run_id } = await engine.createRun(graph);
      const unsubscribe = await engine.subscribe(run_id, () => {}, { commitWith: participant });
      const out = await engine.continueRun(run_id);
      await unsubscribe();
      assert.equal(out.status, 'completed', JSON.stringify(out.error));
      assert.ok(inFlightAtJoin.length > 0, 'the participant joined the run’s transactions');
      assert.equal(committed, inFlightAtJoin.length, 'each join committed with its transaction');
      assert.ok(
        inFlightAtJoin.every((n) => n > 0),
        `joined with the transaction's own statements in flight: ${inFlightAtJoin.join(', ')}`,
      );
      await engine.close();
    });
  });
});
