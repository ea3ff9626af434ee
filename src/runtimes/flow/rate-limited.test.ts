/**
 * A flowchart node's model call answered 429 with Retry-After is called again after the wait, as a
 * source invocation of its own, and the run completes.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ModelScript } from '../../dev/scripted-model/index.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import { flowKit } from '../../testing/flow-kit.ts';
import { createFlowchart, runFlowchart } from './index.ts';

describeEachStore('flowchart model calls rate limited', (factory) => {
  test('a 429 with Retry-After: 1, then success: two invocations, the second a second after the first', async () =>
    factory.withStore(async ({ store }) => {
      const script: ModelScript = {
        rules: [
          {
            times: 1,
            reply: {
              error: {
                status: 429,
                headers: { 'retry-after': '1' },
                body: { error: { message: 'slow down' } },
              },
            },
          },
        ],
        default: { json: { text: 'the sky is blue', store_mode: 'append', confidence: 0.9 } },
      };
      const kit = await flowKit(store, script);
      try {
        const fc = await createFlowchart(store, {
          name: 'single',
          graph: {
            nodes: [
              { id: 'start', node_type: 'start' },
              { id: 'n', node_type: 'memory', config: { action: 'add', retry_count: 0 } },
              { id: 'end', node_type: 'end' },
            ],
            edges: [
              { source_node_id: 'start', target_node_id: 'n', edge_mode: 'solid' },
              { source_node_id: 'n', target_node_id: 'end', edge_mode: 'solid' },
            ],
          },
        });
        const { flowchart_run_id, outcome } = await runFlowchart(store, kit.engine, fc.flowchart_id, {
          input: { text: 'the sky is blue today' },
        });
        assert.equal(outcome.status, 'completed', JSON.stringify(outcome.error));
        const rows = await store.all<{
          status: string;
          failure_class: string | null;
          started_at: number;
          ended_at: number;
        }>(
          'SELECT status, failure_class, started_at, ended_at FROM source_invocations WHERE run_id = ? ORDER BY invocation_seq',
          [flowchart_run_id],
        );
        assert.deepEqual(
          rows.map((r) => [r.status, r.failure_class ?? null]),
          [
            ['failed', 'rate_limited'],
            ['succeeded', null],
          ],
        );
        assert.ok(Number(rows[1]!.started_at) - Number(rows[0]!.ended_at) >= 1000, JSON.stringify(rows));
      } finally {
        await kit.close();
      }
    }));
});
