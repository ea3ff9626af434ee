/**
 * A world generation answered 429 with Retry-After is called again after the wait, as a source
 * invocation of its own, and the turn commits.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadScript } from '../../src/dev/scripted-model/index.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { PARK_SCRIPT, startParkKit } from '../../src/testing/world-kit.ts';

describeEachStore('world generations rate limited', (factory) => {
  test('a 429 with Retry-After: 1, then success: two invocations, the second a second after the first', async () =>
    factory.withStore(async ({ store }) => {
      const park = loadScript(PARK_SCRIPT);
      const limited = {
        match: { subject: 'ant' },
        times: 1,
        reply: {
          error: { status: 429, headers: { 'retry-after': '1' }, body: { error: { message: 'slow down' } } },
        },
      };
      const kit = await startParkKit(store, { script: { ...park, rules: [limited, ...park.rules] } });
      try {
        await kit.world('park');
        const turn = await kit.runtime.runTurn({ world_slug: 'park' });
        assert.equal(turn.status, 'committed', JSON.stringify(turn));
        const rows = await store.all<{ failure_class: string | null; started_at: number; ended_at: number }>(
          `SELECT failure_class, started_at, ended_at FROM source_invocations
           WHERE attempt_id = ? AND workflow_subject_entity_id = 'ant' AND invocation_kind = 'llm_generation'
           ORDER BY invocation_seq`,
          [turn.attempt_id],
        );
        assert.deepEqual(
          rows.map((r) => r.failure_class ?? null),
          ['rate_limited', null],
        );
        assert.ok(Number(rows[1]!.started_at) - Number(rows[0]!.ended_at) >= 1000, JSON.stringify(rows));
      } finally {
        await kit.close();
      }
    }));
});
