/**
 * A run's transaction body learns whether it is `fenced`: whether the transaction wrote carried
 * steps, whose writes check the run's lease. `ctx.records` queries the lease itself when it is not,
 * so `fenced` must never be true for a transaction that wrote no step — not when nothing was carried,
 * not when the carried step landed with an earlier transaction whose answer was lost, and not when
 * it landed with another transaction while this one waited. Two transactions of a run open at once
 * never both write a carried step: the second waits for the first to end.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { STORE_BUSY, type Transaction, type TransactionOptions } from '../../store/store.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import { FaultyStore } from '../../testing/faulty-store.ts';
import { EventBus } from './bus.ts';
import { RunEvents } from './run-events.ts';

const insert = (id: number) => ({ sql: 'INSERT INTO carried (id) VALUES (?)', params: [id], miss: null });
const landed = (id: number) => ({ sql: 'SELECT 1 AS x FROM carried WHERE id = ?', params: [id] });

describeEachStore('engine: run transactions told whether carried writes fence them', (factory) => {
  test('fenced exactly when the transaction wrote a carried step', async () => {
    await factory.withStore(async ({ store: raw }) => {
      await raw.run('CREATE TABLE carried (id INTEGER PRIMARY KEY)');
      const store = new FaultyStore(raw);
      const events = new RunEvents(new EventBus(store, 'test', false), 'run').claimed(1);
      const fencedOf = (): Promise<boolean> => events.transaction(async (_tx, _emit, fenced) => fenced);

      assert.equal(await fencedOf(), false, 'nothing carried');

      events.carry({ writes: [insert(1)], landed: landed(1), emit: null });
      assert.equal(await fencedOf(), true, 'a step carried and written');
      assert.equal(await fencedOf(), false, 'the step landed: nothing carried any more');

      // The carrying transaction fails before its COMMIT: the next one writes the step again.
      events.carry({ writes: [insert(2)], landed: landed(2), emit: null });
      store.arm({ transaction: 1, at: 'commit' });
      await assert.rejects(fencedOf());
      store.disarm();
      assert.equal(await fencedOf(), true, 'the step written again');

      // Its COMMIT lands but the answer is lost: the next one finds the step and writes nothing.
      events.carry({ writes: [insert(3)], landed: landed(3), emit: null });
      store.arm({ transaction: 1, at: 'after-commit' });
      await assert.rejects(fencedOf());
      store.disarm();
      assert.equal(await fencedOf(), false, 'the step found landed, not written');

      // Two asked for at once: the step lands with one; the other wrote none. Where they run at once
      // (PostgreSQL: two connections) the one writing the step holds its transaction open until the
      // other has begun and had time to probe for the step, which it must neither find landed nor
      // write again (the same row from two transactions: a unique key conflict). Where transactions
      // queue (SQLite) the other cannot begin: the wait ends after 200 ms.
      let entered = 0;
      let both = Promise.withResolvers<void>();
      /** Holds the writer's transaction open until the other has begun (or 200 ms), then 50 ms more. */
      const holdOpen = async () => {
        await Promise.race([both.promise, delay(200)]);
        await delay(50);
      };
      const entering = new Proxy(raw, {
        get(target, key) {
          if (key === 'transaction')
            return (fn: (tx: Transaction) => Promise<unknown>, options?: TransactionOptions) =>
              target.transaction(async (tx) => {
                if (++entered === 2) both.resolve();
                return fn(tx);
              }, options);
          const v = Reflect.get(target, key, target);
          return typeof v === 'function' ? v.bind(target) : v;
        },
      });
      const concurrent = new RunEvents(new EventBus(entering, 'test', false), 'run').claimed(1);
      const heldOpen = (): Promise<boolean> =>
        concurrent.transaction(async (_tx, _emit, fenced) => {
          if (fenced) await holdOpen();
          return fenced;
        });
      concurrent.carry({ writes: [insert(4)], landed: landed(4), emit: null });
      const told = await Promise.all([heldOpen(), heldOpen()]);
      assert.deepEqual([...told].sort(), [false, true], 'exactly one told fenced');

      // The one writing the step fails after the other began: the other writes it, and is fenced.
      entered = 0;
      both = Promise.withResolvers<void>();
      let writerFailed = false;
      const failsHeldOpen = (): Promise<boolean> =>
        concurrent.transaction(async (_tx, _emit, fenced) => {
          if (fenced && !writerFailed) {
            writerFailed = true;
            await holdOpen();
            throw new Error('the writer fails before its COMMIT');
          }
          return fenced;
        });
      concurrent.carry({ writes: [insert(5)], landed: landed(5), emit: null });
      const settled = await Promise.allSettled([failsHeldOpen(), failsHeldOpen()]);
      assert.deepEqual(
        settled.map((r) => (r.status === 'fulfilled' ? r.value : 'failed')).sort(),
        ['failed', true],
        'the other wrote the step',
      );

      const rows = await raw.all<{ id: number }>('SELECT id FROM carried ORDER BY id');
      assert.deepEqual(
        rows.map((r) => Number(r.id)),
        [1, 2, 3, 4, 5],
      );
    });
  });

  test('fenced exactly when the transaction wrote a carried step, synchronously', async (t) => {
    await factory.withStore(async ({ store: raw }) => {
      if (!raw.transactionSync) {
        t.skip('the store has no synchronous transactions (PostgreSQL): records take the async path above');
        return;
      }
      await raw.run('CREATE TABLE carried (id INTEGER PRIMARY KEY)');
      const store = new FaultyStore(raw);
      const events = new RunEvents(new EventBus(store, 'test', false), 'run').claimed(1);
      const fencedOf = (): boolean => {
        const out = events.transactionSync((_tx, _emit, fenced) => fenced);
        assert.notEqual(out, STORE_BUSY);
        return out as boolean;
      };

      assert.equal(fencedOf(), false, 'nothing carried');
      events.carry({ writes: [insert(1)], landed: landed(1), emit: null });
      assert.equal(fencedOf(), true, 'a step carried and written');
      assert.equal(fencedOf(), false, 'the step landed: nothing carried any more');

      events.carry({ writes: [insert(2)], landed: landed(2), emit: null });
      store.arm({ transaction: 1, at: 'after-commit' });
      assert.throws(() => fencedOf());
      store.disarm();
      assert.equal(fencedOf(), false, 'the step found landed, not written');
    });
  });
});
