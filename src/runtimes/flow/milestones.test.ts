/**
 * Applying a milestone: the change it reports is the row it leaves, and the update of an existing
 * row is issued (`Transaction.write`) without being waited for, so the node's next writes and the
 * COMMIT travel with it where the store pipelines.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Transaction } from '../../store/store.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import { applyMilestone, getMilestone } from './milestones.ts';

/** `tx`, with the statements it is handed recorded by how: awaited (`run`, `get`, `all`) or issued (`write`). */
function recording(tx: Transaction): { q: Transaction; awaited: string[]; issued: string[] } {
  const awaited: string[] = [];
  const issued: string[] = [];
  const q = new Proxy(tx, {
    get(t, k) {
      const v = Reflect.get(t, k);
      if (typeof v !== 'function') return v;
      return (sql: string, ...rest: unknown[]) => {
        if (k === 'run' || k === 'get' || k === 'all') awaited.push(sql);
        if (k === 'write' || k === 'writeOne') issued.push(sql);
        return (v as (...a: unknown[]) => unknown).call(t, sql, ...rest);
      };
    },
  });
  return { q, awaited, issued };
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
  test('an update of an existing milestone is issued, not awaited, and reports the row it leaves', async () =>
    factory.withStore(async ({ store }) => {
      const created = await store.transaction(async (tx) => {
        const r = recording(tx);
        const c = await applyMilestone(r.q, input('create_or_update', 'Triage', '2026-01-01T00:00:00.000Z'));
        assert.deepEqual(r.issued, [], 'a new row is written as it stays: nothing to update');
        return c;
      });
      const first = created;
      for (const [action, title, now] of [
        ['create_or_update', 'Triaged', '2026-01-02T00:00:00.000Z'],
        ['mark_complete', '', '2026-01-03T00:00:00.000Z'],
        ['mark_complete', '', '2026-01-04T00:00:00.000Z'],
      ] as const) {
        const change = await store.transaction(async (tx) => {
          const r = recording(tx);
          const c = await applyMilestone(r.q, input(action, title, now));
          assert.equal(r.issued.filter((sql) => sql.startsWith('UPDATE flow_milestones')).length, 1, action);
          assert.deepEqual(
            r.awaited.filter((sql) => sql.startsWith('UPDATE')),
            [],
            `${action}: no update is waited for`,
          );
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
