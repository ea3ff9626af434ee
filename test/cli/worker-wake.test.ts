/**
 * A worker takes a run an API process (`serve --no-work`) created as soon as it is created: the API
 * announces it with the commit and the listening worker claims at once, instead of at its next pass.
 * The workers' passes are set ten minutes apart, so a run the announcement did not reach would not
 * finish within the test. Pinned to PostgreSQL: `serve --no-work` needs a store several processes share,
 * and the announcement is a LISTEN/NOTIFY.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type ModelScript, startScriptedModel } from '../../src/dev/scripted-model/index.ts';
import { type RunningCli, startCli } from '../../src/testing/cli.ts';
import { EXAMPLE, EXAMPLE_SCRIPT, readJson } from '../../src/testing/flow-kit.ts';
import { openTestStore, selectedStores } from '../../src/testing/stores.ts';
import { testTempDir } from '../../src/testing/temp-dir.ts';
import { waitUntil } from '../../src/testing/wait.ts';
import { startWorkerCli, type WorkerProcess } from '../../src/testing/worker-kit.ts';

const TOKEN = 'worker-wake-test-token-0123456789';

describe('a worker woken by the API process', { skip: !selectedStores().includes('postgres') }, () => {
  test('claims each run serve --no-work creates when it is created, not at its next pass', async () => {
    const ts = await openTestStore('postgres');
    const model = await startScriptedModel({ script: readJson(EXAMPLE_SCRIPT) as ModelScript });
    const env: Record<string, string> = {
      NOEMA_DB: ts.url,
      NOEMA_DATA_DIR: testTempDir('noema-wake-'),
      NOEMA_TOKEN: TOKEN,
      NOEMA_LLM_BASE_URL: model.url,
      NOEMA_LLM_MODEL: 'scripted',
      // Passes ten minutes apart: only the announcement can bring a run to the worker in time.
      NOEMA_RECOVERY_INTERVAL_MS: '600000',
    };
    let serve: RunningCli | undefined;
    let worker: WorkerProcess | undefined;
    const api = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${url}${path}`, {
        method,
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, json: (await res.json()) as Record<string, unknown> };
    };
    let url = '';
    try {
      serve = startCli(['serve', '--port', '0', '--no-work'], env);
      [, url = ''] = await serve.waitFor(/serving on (http:\/\/127\.0\.0\.1:\d+)/, 60_000);
      // Up before any run exists: its first pass, at start, finds nothing.
      worker = await startWorkerCli(env);
      const created = await api('POST', '/api/flowcharts', readJson(EXAMPLE));
      assert.equal(created.status, 201, JSON.stringify(created.json));
      const flowchart = created.json.flowchart_id as string;
      for (let i = 0; i < 2; i++) {
        const run = await api('POST', `/api/flowcharts/${flowchart}/runs`, {
          input: { message: `jam ${i}` },
        });
        assert.ok(run.status < 300, JSON.stringify(run.json));
        const id = run.json.flowchart_run_id as string;
        await waitUntil(
          `flowchart run ${i} completed by the worker`,
          async () =>
            ((await api('GET', `/api/flowcharts/${flowchart}/runs/${id}`)).json.item as { status?: string })
              ?.status === 'completed',
          { timeoutMs: 60_000, intervalMs: 100 },
        );
      }
      const claims = await ts.store.all<{ worker_id: string }>('SELECT worker_id FROM engine_run_attempts');
      assert.deepEqual(
        claims.map((c) => c.worker_id),
        [worker.owner, worker.owner],
        'each run claimed once, by the worker',
      );
    } finally {
      worker?.cli.child.kill('SIGKILL');
      serve?.child.kill('SIGKILL');
      await model.close();
      await ts.dispose();
    }
  });
});
