/**
 * Per-patch transition records under the seed's names (seed 004 D12): `state_before` (the state just
 * before this patch) and `state_after`, in get_attempt, list_audit_events, the REST attempt and the
 * pages; rows stored under the old names (`before` / `after`) read the same way.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getAttempt, listAuditEvents } from '../../src/runtimes/world/index.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { startParkKit } from '../../src/testing/world-kit.ts';
import { startTestHttp } from '../http/helpers.ts';

const BOB = {
  op: 'set_entity_state',
  target: { entity_id: 'bob' },
  state_before: 'hungry, standing near the vending machine, with $2 and a phone in his pocket',
  state_after: 'holding a candy bar',
};
const ANT = {
  op: 'set_entity_state',
  target: { entity_id: 'ant' },
  state_before: 'hungry, on the plate',
  state_after: 'fed, standing where the crumb was',
};

/** Every transition of a value, wherever it sits, has exactly the seed's fields. */
function assertSeedNames(value: unknown, where: string): number {
  let n = 0;
  JSON.stringify(value, (k, v) => {
    if (k === 'transitions')
      for (const t of v as Array<Record<string, unknown>>) {
        assert.deepEqual(Object.keys(t).sort(), ['op', 'state_after', 'state_before', 'target'], where);
        n++;
      }
    return v;
  });
  return n;
}

describeEachStore('per-patch transitions are named state_before / state_after', (factory) => {
  test('get_attempt, list_audit_events, the REST attempt and the pages use the seed names; old rows read the same', async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startParkKit(store);
      const http = await startTestHttp(store);
      try {
        await kit.world('park');
        const r = await kit.runtime.runTurn({ world_slug: 'park' });
        assert.equal(r.status, 'committed', JSON.stringify(r.failure));

        const check = async (label: string) => {
          const a = await getAttempt(store, { attempt_id: r.attempt_id });
          assert.ok(assertSeedNames(a, `${label}: get_attempt`) >= 5);
          assert.deepEqual(a.patches[0]!.transitions[0], BOB, label);
          assert.deepEqual(a.patches[1]!.transitions[0], ANT, label);

          const events = (await listAuditEvents(store, { world_slug: 'park' })).items;
          const applied = events.filter((e) => e.event_type === 'world_patch_applied');
          assert.ok(assertSeedNames(applied, `${label}: list_audit_events`) >= 5);
          assert.deepEqual((applied[0] as { transitions?: unknown[] }).transitions?.[0], BOB, label);

          const rest = await http.get(`/attempts/${r.attempt_id}?format=json`);
          assert.equal(rest.status, 200);
          assert.ok(assertSeedNames(rest.body, `${label}: REST`) >= 5);
          assert.deepEqual(rest.body.patches[1].transitions[0], ANT, label);

          for (const path of [`/attempts/${r.attempt_id}`, '/worlds/park']) {
            const page = await http.get(path, { headers: { accept: 'text/html' } });
            assert.equal(page.status, 200, path);
            assert.match(page.text, /<th>state_before[^<]*<\/th><th>state_after<\/th>/, `${label}: ${path}`);
            assert.match(page.text, /<td class="before">hungry, on the plate<\/td>/, `${label}: ${path}`);
            assert.doesNotMatch(page.text, /turn-start|before \(turn/, `${label}: ${path}`);
          }
        };
        await check('new rows');

        // Rows written under the old names read as the seed's.
        const rows = await store.all<{ patch_seq: number; transitions_json: string }>(
          'SELECT patch_seq, transitions_json FROM world_patches WHERE attempt_id = ?',
          [r.attempt_id],
        );
        for (const row of rows) {
          const old = (JSON.parse(row.transitions_json) as Array<Record<string, unknown>>).map(
            ({ state_before, state_after, ...t }) => ({ ...t, before: state_before, after: state_after }),
          );
          await store.run(
            'UPDATE world_patches SET transitions_json = ? WHERE attempt_id = ? AND patch_seq = ?',
            [JSON.stringify(old), r.attempt_id, Number(row.patch_seq)],
          );
        }
        const stored = await store.get<{ transitions_json: string }>(
          'SELECT transitions_json FROM world_patches WHERE attempt_id = ? AND patch_seq = 1',
          [r.attempt_id],
        );
        assert.match(stored!.transitions_json, /"before":/);
        await check('old rows');
      } finally {
        await http.close();
        await kit.close();
      }
    });
  });
});
