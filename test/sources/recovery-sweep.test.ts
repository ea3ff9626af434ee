/**
 * The periodic recovery sweep: a `noema serve` that keeps serving marks the calls of a SIGKILLed
 * `noema source invoke` `interrupted` on its own — no process has to restart for them to be recovered.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { startScriptedModel } from '../../src/dev/scripted-model/index.ts';
import { getLlmCall, getSourceInvocation, startRecoverySweep } from '../../src/sources/index.ts';
import { startCli } from '../../src/testing/cli.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { testTempDir } from '../../src/testing/temp-dir.ts';
import { waitUntil } from '../../src/testing/wait.ts';

describeEachStore('periodic recovery sweep', (factory) => {
  test('a serving process interrupts a killed process’s running calls while it keeps serving', async () => {
    const { store, url, dispose } = await factory.open();
    const model = await startScriptedModel({
      script: { rules: [{ reply: { hang: true, json: { kind: 'final_patch' } } }] },
    });
    const dir = testTempDir('noema-sweep-');
    const sourceFile = join(dir, 'llm.json');
    writeFileSync(
      sourceFile,
      JSON.stringify({
        version: 1,
        interface: { name: 'llm_chat_completions', model: 'scripted', schema_delivery: 'response_format' },
      }),
    );
    const server = startCli(['serve', '--port', '0'], {
      NOEMA_DB: url,
      NOEMA_DATA_DIR: dir,
      NOEMA_TOKEN: 'sweep-test-token-0123456789',
      NOEMA_RECOVERY_INTERVAL_MS: '200',
    });
    const caller = startCli(
      ['source', 'invoke', sourceFile, '--request', '{"messages":[{"role":"user","content":"hi"}]}'],
      { NOEMA_DB: url, NOEMA_LLM_BASE_URL: model.url, NOEMA_LLM_API_KEY: '' },
    );
    try {
      const [, base] = await server.waitFor(/serving on (http:\/\/127\.0\.0\.1:\d+)/);
      await waitUntil('the call to reach the model', () => model.requests.length > 0, { timeoutMs: 15_000 });
      const row = await store.get<{ source_invocation_id: string }>(
        "SELECT source_invocation_id FROM source_invocations WHERE status = 'running'",
      );
      assert.ok(row, 'the running row is committed');
      // Several sweeps pass while the caller lives: its rows are left alone.
      await new Promise((r) => setTimeout(r, 600));
      assert.equal((await getSourceInvocation(store, row.source_invocation_id)).status, 'running');

      caller.child.kill('SIGKILL');
      await caller.exited;
      await waitUntil(
        'the serving process to interrupt the dead caller’s call',
        async () => (await getSourceInvocation(store, row.source_invocation_id)).status === 'interrupted',
        { timeoutMs: 10_000, intervalMs: 50 },
      );
      const after = await getSourceInvocation(store, row.source_invocation_id);
      assert.equal(after.failure_class, 'interrupted');
      assert.equal((await getLlmCall(store, String(after.llm_call_id))).status, 'interrupted');
      const health = await fetch(`${base}/healthz`);
      assert.equal(health.status, 200, 'the server kept serving');
      assert.equal(server.child.exitCode, null);
    } finally {
      caller.child.kill('SIGKILL');
      server.child.kill('SIGTERM');
      await server.exited;
      await model.close();
      await dispose();
    }
  });

  test('the sweep never overlaps itself and stop() ends it', async () => {
    await factory.withStore(async ({ store }) => {
      const sweep = startRecoverySweep(store, { intervalMs: 60_000 });
      const [a, b] = await Promise.all([sweep.sweepNow(), sweep.sweepNow()]);
      assert.deepEqual(a, { interrupted: 0, dead_processes: [] });
      assert.equal(b, null, 'a second sweep while one runs is skipped');
      await sweep.stop();
      assert.equal(await sweep.sweepNow(), null, 'no sweep after stop');
    });
  });
});
