/**
 * Applying a milestone: the change it reports is the row it leaves, and the update of an existing
 * row is issued without being waited for, so the node's next writes travel with it where the store
 * pipelines (the node's commit awaits it before committing).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Queryable, Transaction } from '../../store/store.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import { applyMilestone, getMilestone, type MilestoneChange } from './milestones.ts';

/** `tx` with the answer to every UPDATE (`run` or `get`) held until `release`; the statement runs at once. */
function holdingUpdates(tx: Transaction): { q: Queryable; issued: Promise<void>; release: () => void } {
  const gate = Promise.withResolvers<void>();
  const issued = Promise.withResolvers<void>();
  const q = new Proxy(tx, {
    get(t, k) {
      const v = Reflect.get(t, k);
      if (k !== 'run' && k !== 'get') return typeof v === 'function' ? v.bind(t) : v;
      return (sql: string, params?: never) => {
        const out: Promise<unknown> = k === 'run' ? t.run(sql, params) : t.get(sql, params);
        if (!sql.startsWith('UPDATE')) return out;
        issued.resolve();
        return gate.promise.then(() => out);
      };
    },
  });
  return { q, issued: issued.promise, release: () => gate.resolve() };
}

const input = (action: 'create_or_update' | 'mark_complete', title: string, now: string) => ({
  flowchart_id: 'f',
  key: 'triaged',
  action,
  title,
  description: '',
  now,
});

describeEachStore('milestones', (factory) => {
  test('an update of an existing milestone returns before its answer, and reports the row it leaves', async () =>
    factory.withStore(async ({ store }) => {
      const first = await store.transaction((tx) =>
        applyMilestone(tx, input('create_or_update', 'Triage', '2026-01-01T00:00:00.000Z')),
      );
      assert.equal(first.writing, null, 'a new row is written as it stays');
      for (const [action, title, now] of [
        ['create_or_update', 'Triaged', '2026-01-02T00:00:00.000Z'],
        ['mark_complete', '', '2026-01-03T00:00:00.000Z'],
        ['mark_complete', '', '2026-01-04T00:00:00.000Z'],
      ] as const) {
        const change = await store.transaction(async (tx) => {
          const { q, issued, release } = holdingUpdates(tx);
          const applying = applyMilestone(q, input(action, title, now));
          // Whichever comes first once the update is issued and every pending turn has run.
          const first = await Promise.race([
            applying.then(() => 'returned'),
            issued.then(() => new Promise((r) => setImmediate(() => r('waited for the update')))),
          ]);
          release();
          const c: MilestoneChange = await applying;
          await c.writing;
          assert.equal(first, 'returned', action);
          return c;
        });
        assert.deepEqual(change.milestone, await getMilestone(store, first.milestone.milestone_id), action);
      }
      const done = await getMilestone(store, first.milestone.milestone_id);
      assert.deepEqual(
        {
          title: done.title,
          status: done.status,
          completed_at: done.completed_at,
          updated_at: done.updated_at,
        },
        {
          title: 'Triaged',
          status: 'complete',
          completed_at: '2026-01-03T00:00:00.000Z',
          updated_at: '2026-01-04T00:00:00.000Z',
        },
      );
    }));
});
