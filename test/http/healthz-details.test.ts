/**
 * `GET /healthz?details=1` with the token adds the queue depth; `GET /workers` lists who executes runs;
 * `GET /runs/:id` names each attempt's process.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { queueFlowRuns } from '../../src/testing/worker-kit.ts';
import { startTestHttp } from './helpers.ts';

describeEachStore('healthz details and workers', (factory) => {
  test('the queue depth is told to the token only; a bad details value is refused', async () =>
    factory.withStore(async ({ store }) => {
      await queueFlowRuns(store, 2);
      const http = await startTestHttp(store);
      try {
        assert.deepEqual((await http.get('/healthz', { auth: false })).body, { ok: true });
        const anonymous = await http.get('/healthz?details=1', { auth: false });
        assert.equal(anonymous.status, 401);
        assert.equal(anonymous.body.code, 'UNAUTHORIZED');
        const wrong = await http.get('/healthz?details=1', {
          auth: false,
          headers: { authorization: 'Bearer not-the-token-at-all' },
        });
        assert.equal(wrong.status, 401);
        const details = await http.get('/healthz?details=1');
        assert.equal(details.status, 200);
        assert.deepEqual(details.body, { ok: true, queue: { by_kind: { flow: 2 }, total: 2 } });
        const bad = await http.get('/healthz?details=yes');
        assert.equal(bad.status, 400);
        assert.equal(bad.body.code, 'INVALID_INPUT');
        // A run's record names each attempt's process (none yet: nothing claimed it).
        const [queuedId] = await store
          .all<{ run_id: string }>(
            "SELECT run_id FROM engine_runs WHERE status = 'queued' ORDER BY run_pk LIMIT 1",
          )
          .then((r) => r.map((x) => x.run_id));
        const run = await http.get(`/runs/${queuedId}`);
        assert.equal(run.status, 200, run.text);
        assert.deepEqual((run.body.item ?? run.body).attempts, []);
        const workers = await http.get('/workers');
        assert.equal(workers.status, 200);
        assert.deepEqual(workers.body, { workers: [], queue: { by_kind: { flow: 2 }, total: 2 } });
      } finally {
        await http.close();
      }
    }));
});
