/**
 * `noema dev cluster --workers N`: the API (`serve --no-work`) and N workers on one store, output
 * prefixed by process; a flowchart run created through the API is executed by a worker; Ctrl-C stops
 * every process (the workers drain), exit 0. A store the API refuses stops the cluster, exit 2.
 *
 * The cluster itself is pinned to PostgreSQL: its API (`serve --no-work`) needs a store that carries
 * run events between processes, which SQLite does not (that refusal is the second spec).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type ModelScript, startScriptedModel } from '../../src/dev/scripted-model/index.ts';
import { runCli, startCli } from '../../src/testing/cli.ts';
import { EXAMPLE, EXAMPLE_SCRIPT, readJson } from '../../src/testing/flow-kit.ts';
import { openTestStore, selectedStores } from '../../src/testing/stores.ts';
import { testTempDir } from '../../src/testing/temp-dir.ts';
import { waitUntil } from '../../src/testing/wait.ts';

const TOKEN = 'dev-cluster-test-token-0123456789';
const postgres = selectedStores().includes('postgres');

describe('noema dev cluster on PostgreSQL', { skip: postgres ? false : 'STORES excludes postgres' }, () => {
  test('an API and two workers, prefixed output; a run created through the API is executed by a worker; SIGINT stops all', async () => {
    const ts = await openTestStore('postgres');
    const model = await startScriptedModel({ script: readJson(EXAMPLE_SCRIPT) as ModelScript });
    const cluster = startCli(['dev', 'cluster', '--workers', '2', '--port', '0'], {
      NOEMA_DB: ts.url,
      NOEMA_DATA_DIR: testTempDir('noema-dev-cluster-'),
      NOEMA_TOKEN: TOKEN,
      NOEMA_LLM_BASE_URL: model.url,
      NOEMA_LLM_MODEL: 'scripted',
      NOEMA_RECOVERY_INTERVAL_MS: '100',
    });
    try {
      const [, url] = await cluster.waitFor(/\[api\] noema serving on (http:\/\/127\.0\.0\.1:\d+)/, 30_000);
      await cluster.waitFor(/\[worker-1\] noema worker \S+ working on/, 30_000);
      await cluster.waitFor(/\[worker-2\] noema worker \S+ working on/, 30_000);
      const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
      const fc = (await (
        await fetch(`${url}/api/flowcharts`, {
          method: 'POST',
          headers,
          body: JSON.stringify(readJson(EXAMPLE)),
        })
      ).json()) as { flowchart_id: string };
      const run = (await (
        await fetch(`${url}/api/flowcharts/${fc.flowchart_id}/runs`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ input: { message: 'jam' } }),
        })
      ).json()) as { flowchart_run_id: string };
      await waitUntil(
        'the run completed',
        async () =>
          (
            await ts.store.get<{ status: string }>('SELECT status FROM engine_runs WHERE run_id = ?', [
              run.flowchart_run_id,
            ])
          )?.status === 'completed',
        { timeoutMs: 30_000, intervalMs: 100 },
      );
      const workers = await ts.store.all<{ kind: string }>('SELECT kind FROM engine_workers');
      assert.deepEqual(
        workers.map((w) => w.kind),
        ['worker', 'worker'],
        'two workers registered; the API executes nothing',
      );
      cluster.child.kill('SIGINT');
      assert.equal(await cluster.exited, 0, cluster.stderr());
      assert.match(cluster.stdout(), /\[worker-1\] drained/);
      assert.match(cluster.stdout(), /\[worker-2\] drained/);
      assert.deepEqual(
        await ts.store.all('SELECT worker_id FROM engine_workers'),
        [],
        'every worker deregistered',
      );
    } finally {
      cluster.child.kill('SIGKILL');
      await model.close();
      await ts.dispose();
    }
  });
});

test('noema dev cluster on a store the API refuses (SQLite) stops every process, exit 2', async () => {
  const r = await runCli(['dev', 'cluster', '--workers', '1', '--port', '0'], {
    NOEMA_DB: `${testTempDir('noema-dev-cluster-sqlite-')}/noema.db`,
    NOEMA_TOKEN: TOKEN,
  });
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /\[api\] noema: serve --no-work needs a store that notifies other processes/);
  assert.match(r.stderr, /\[cluster\] api exited \(2\); stopping the others/);
});
