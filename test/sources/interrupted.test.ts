/**
 * Durable before the call: a real `noema source invoke` child is SIGKILLed while the scripted
 * model hangs; its `running` rows are visible meanwhile, untouched by recovery while it lives,
 * and `interrupted` after recovery once it is dead.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { startScriptedModel } from '../../src/dev/scripted-model/index.ts';
import { getLlmCall, getSourceInvocation, recoverInterruptedInvocations } from '../../src/sources/index.ts';
import { runCli, startCli } from '../../src/testing/cli.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { testTempDir } from '../../src/testing/temp-dir.ts';

async function waitForRow(poll: () => Promise<unknown>, timeoutMs = 15_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (await poll()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('timed out waiting for the running row');
}

describeEachStore('source invocation lifecycle across a killed process', (factory) => {
  test('running rows of a SIGKILLed process become interrupted; a live process keeps its rows', async () => {
    const { store, url, dispose } = await factory.open();
    const model = await startScriptedModel({
      script: { rules: [{ reply: { hang: true, json: { kind: 'final_patch' } } }] },
    });
    const dir = testTempDir('noema-kill-');
    const sourceFile = join(dir, 'llm.json');
    writeFileSync(
      sourceFile,
      JSON.stringify({
        version: 1,
        label: 'chat_router',
        interface: { name: 'llm_chat_completions', model: 'scripted', schema_delivery: 'response_format' },
      }),
    );
    const child = startCli(
      ['source', 'invoke', sourceFile, '--request', '{"messages":[{"role":"user","content":"hi"}]}'],
      {
        NOEMA_DB: url,
        NOEMA_LLM_BASE_URL: model.url,
        NOEMA_LLM_API_KEY: '',
      },
    );
    try {
      await waitForRow(async () => model.requests.length > 0);
      const row = await store.get<{ source_invocation_id: string }>(
        "SELECT source_invocation_id FROM source_invocations WHERE status = 'running'",
      );
      assert.ok(row, 'the running row is committed before the model receives the request');
      const before = await getSourceInvocation(store, row.source_invocation_id);
      assert.equal((await getLlmCall(store, String(before.llm_call_id))).status, 'running');

      const whileAlive = await recoverInterruptedInvocations(store);
      assert.equal(whileAlive.interrupted, 0, 'a live owner keeps its running rows');
      assert.equal((await getSourceInvocation(store, row.source_invocation_id)).status, 'running');

      child.child.kill('SIGKILL');
      await child.exited;
      // The next Noema process to open the store recovers at startup (openNoemaStore).
      const next = await runCli(
        ['source', 'invoke', sourceFile, '--request', '{"messages":[{"role":"user","content":"x"}]}'],
        {
          NOEMA_DB: url,
          NOEMA_LLM_BASE_URL: '',
        },
      );
      assert.equal(next.code, 1, 'the second call fails: not configured');
      const after = await getSourceInvocation(store, row.source_invocation_id);
      assert.equal(after.status, 'interrupted');
      assert.equal(after.failure_class, 'interrupted');
      assert.equal(typeof after.ended_at, 'string');
      const call = await getLlmCall(store, String(after.llm_call_id));
      assert.equal(call.status, 'interrupted');
      assert.equal((await recoverInterruptedInvocations(store)).interrupted, 0, 'recovery is idempotent');
    } finally {
      child.child.kill('SIGKILL');
      await model.close();
      await dispose();
    }
  });

  test('recovery never touches the rows of the process running it', async () => {
    const { putResponseSource, invokeSource } = await import('../../src/sources/index.ts');
    const { store, dispose } = await factory.open();
    const model = await startScriptedModel({ script: { rules: [{ reply: { hang: true, json: {} } }] } });
    try {
      const source = await putResponseSource(store, {
        version: 1,
        interface: { name: 'llm_chat_completions', model: 'm', schema_delivery: 'response_format' },
      });
      const controller = new AbortController();
      const pending = invokeSource(store, {
        source,
        request: { messages: [{ role: 'user', content: 'x' }] },
        kind: 'llm_generation',
        env: { NOEMA_LLM_BASE_URL: model.url },
        signal: controller.signal,
      });
      await waitForRow(async () => model.requests.length > 0);
      assert.equal((await recoverInterruptedInvocations(store)).interrupted, 0);
      controller.abort();
      const out = await pending;
      assert.equal(out.failure_class, 'cancelled');
    } finally {
      await model.close();
      await dispose();
    }
  });
});
