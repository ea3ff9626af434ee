/**
 * Streamed chunks are persisted while the call runs: a `noema source invoke` process killed with
 * SIGKILL mid-stream leaves the chunks that had arrived, and a finished slow stream keeps every
 * chunk once (the batches written on the way are folded into the call's own row).
 */

import assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mock, test } from 'node:test';
import { NoemaError } from '../../core/errors.ts';
import { incidentSink } from '../../core/incident-log.ts';
import { startScriptedModel } from '../../dev/scripted-model/index.ts';
import type { Store, Transaction } from '../../store/store.ts';
import { startCli } from '../../testing/cli.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import { testTempDir } from '../../testing/temp-dir.ts';
import { getLlmCall, invokeSource, putResponseSource, recoverInterruptedInvocations } from '../index.ts';
import { PROGRESS_INTERVAL_MS } from '../invocations/progress.ts';

const REPLY = { kind: 'final_patch', patch: { narration: 'Bob counts the coins in his pocket, slowly.' } };
const SOURCE = {
  version: 1,
  interface: { name: 'llm_chat_completions', model: 'scripted-1', schema_delivery: 'prompt_only' },
} as const;
const REQUEST = { messages: [{ role: 'user', content: 'Count.' }] };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The assistant text carried by recorded chunks, in order. */
function contentOf(chunks: Array<{ data: string }>): string {
  let text = '';
  for (const c of chunks) {
    if (c.data.trim() === '[DONE]') continue;
    const e = JSON.parse(c.data) as { choices?: Array<{ delta?: { content?: string } }> };
    text += e.choices?.[0]?.delta?.content ?? '';
  }
  return text;
}

/** The store, except that the first write of a chunk batch fails as a busy database does. */
function failingFirstBatch(store: Store): { store: Store; failures: () => number } {
  let failures = 0;
  const wrapped: Store = Object.create(store);
  // The invocation's own rows may commit synchronously, on the store itself.
  if (store.transactionSync) wrapped.transactionSync = store.transactionSync.bind(store);
  wrapped.transaction = (fn, options) =>
    store.transaction((tx) => {
      const faulty: Transaction = Object.create(tx);
      faulty.run = async (sql, params) => {
        if (failures === 0 && sql.startsWith('INSERT INTO llm_call_chunks')) {
          failures++;
          throw new NoemaError('STORE_BUSY', 'the database is busy', { retryable: true });
        }
        return tx.run(sql, params);
      };
      return fn(faulty);
    }, options);
  return { store: wrapped, failures: () => failures };
}

describeEachStore('LLM chunks persisted while streaming', (factory) => {
  test('kill -9 mid-stream: the partial chunks are in the store, the call interrupted', async () => {
    const { store, url, dispose } = await factory.open();
    // 4 characters a chunk, one every 40 ms, and the stream stops after 30 chunks without ending.
    const model = await startScriptedModel({
      script: {
        rules: [],
        default: { json: REPLY, chunk_chars: 4, chunk_delay_ms: 40, hang: true, hang_after_chunks: 30 },
      },
    });
    const dir = testTempDir('noema-chunks-');
    const sourceFile = join(dir, 'source.json');
    writeFileSync(sourceFile, JSON.stringify(SOURCE));
    const child = startCli(['source', 'invoke', sourceFile, '--request', JSON.stringify(REQUEST)], {
      NOEMA_DB: url,
      NOEMA_LLM_BASE_URL: model.url,
    });
    try {
      let persisted: { llm_call_id: string; chunk_count: number } | undefined;
      for (let i = 0; i < 400 && !persisted; i++) {
        await sleep(25);
        persisted = await store.get<{ llm_call_id: string; chunk_count: number }>(
          `SELECT llm_call_id, chunk_count FROM llm_calls WHERE status = 'running' AND chunk_count >= 12`,
        );
      }
      assert.ok(persisted, `no chunks persisted while streaming; stderr=${child.stderr()}`);
      child.child.kill('SIGKILL');
      await child.exited;
      // Several batches (one per 200 ms, about 5 chunks each): each must decode on its own.
      const batches = await store.get<{ n: number }>(
        'SELECT COUNT(*) AS n FROM llm_call_chunks WHERE llm_call_id = ?',
        [persisted.llm_call_id],
      );
      assert.ok(Number(batches?.n) >= 2, `${batches?.n} batches`);

      const report = await recoverInterruptedInvocations(store);
      assert.equal(report.interrupted, 1);
      const call = await getLlmCall(store, persisted.llm_call_id);
      assert.equal(call.status, 'interrupted');
      const chunks = call.chunks as Array<{ seq: number; data: string }>;
      assert.ok(chunks.length >= persisted.chunk_count, `${chunks.length} < ${persisted.chunk_count}`);
      // The role event plus at most the 30 content chunks the model sent before hanging.
      assert.ok(chunks.length <= 31, `${chunks.length} chunks`);
      assert.deepEqual(
        chunks.map((c) => c.seq),
        chunks.map((_, i) => i + 1),
      );
      const text = contentOf(chunks);
      assert.ok(text.length > 0);
      assert.ok(JSON.stringify(REPLY).startsWith(text), `not a prefix of the reply: ${text}`);
    } finally {
      if (child.child.exitCode === null) child.child.kill('SIGKILL');
      await model.close();
      rmSync(dir, { recursive: true, force: true });
      await dispose();
    }
  });

  test('a batch that cannot be written is logged once, retried with the next, and the call succeeds', async () => {
    const { store, dispose } = await factory.open();
    const model = await startScriptedModel({
      script: { rules: [], default: { json: REPLY, chunk_chars: 4, chunk_delay_ms: 30 } },
    });
    const logged = mock.method(incidentSink, 'write', () => {});
    try {
      const source = await putResponseSource(store, SOURCE);
      const faulty = failingFirstBatch(store);
      let batches: Array<{ first_seq: number; n: number }> = [];
      const watcher = setInterval(() => {
        void store
          .all<{ first_seq: number; chunks_json: string }>(
            'SELECT first_seq, chunks_json FROM llm_call_chunks ORDER BY first_seq',
          )
          .then(
            (rows) => {
              if (rows.length > 0)
                batches = rows.map((r) => ({
                  first_seq: Number(r.first_seq),
                  n: (JSON.parse(r.chunks_json) as unknown[]).length,
                }));
            },
            () => {},
          );
      }, PROGRESS_INTERVAL_MS / 4);
      const out = await invokeSource(faulty.store, {
        source,
        request: REQUEST,
        kind: 'llm_generation',
        env: { NOEMA_LLM_BASE_URL: model.url },
      });
      clearInterval(watcher);
      assert.equal(out.ok, true, out.error?.message);
      assert.equal(faulty.failures(), 1);
      assert.equal(logged.mock.callCount(), 1);
      assert.match(String(logged.mock.calls[0]?.arguments[0]), new RegExp(out.source_invocation_id));
      // The batches seen mid-stream start at chunk 1 and leave no gap after the failed one.
      assert.ok(batches.length > 0, 'no batch was written after the failed one');
      assert.equal(batches[0]?.first_seq, 1);
      for (let i = 1; i < batches.length; i++)
        assert.equal(batches[i]!.first_seq, batches[i - 1]!.first_seq + batches[i - 1]!.n);
      const call = await getLlmCall(store, out.llm_call_id!);
      assert.equal(contentOf(call.chunks as Array<{ data: string }>), JSON.stringify(REPLY));
    } finally {
      logged.mock.restore();
      await model.close();
      await dispose();
    }
  });

  test('a slow stream that finishes keeps each chunk once, in chunks_json, with no batches left', async () => {
    const { store, dispose } = await factory.open();
    const model = await startScriptedModel({
      script: { rules: [], default: { json: REPLY, chunk_chars: 8, chunk_delay_ms: 30 } },
    });
    try {
      const source = await putResponseSource(store, SOURCE);
      const seen: number[] = [];
      const watcher = setInterval(() => {
        void store.get<{ n: number }>('SELECT COUNT(*) AS n FROM llm_call_chunks').then(
          (r) => seen.push(Number(r?.n ?? 0)),
          () => {},
        );
      }, PROGRESS_INTERVAL_MS / 2);
      const out = await invokeSource(store, {
        source,
        request: REQUEST,
        kind: 'llm_generation',
        env: { NOEMA_LLM_BASE_URL: model.url },
      });
      clearInterval(watcher);
      assert.equal(out.ok, true, out.error?.message);
      assert.ok(Math.max(...seen) > 0, 'no batch was written while the call streamed');
      const left = await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM llm_call_chunks');
      assert.equal(Number(left?.n), 0);
      const call = await getLlmCall(store, out.llm_call_id!);
      const chunks = call.chunks as Array<{ seq: number; data: string }>;
      assert.equal(call.chunk_count, chunks.length);
      assert.equal(contentOf(chunks), JSON.stringify(REPLY));
    } finally {
      await model.close();
      await dispose();
    }
  });
  test('a configured secret in the stream is redacted in the batches written on the way and in the finished call', async () => {
    const { store, dispose } = await factory.open();
    const secret = 'sk-test-7f3a9c2e1b';
    // The secret inside the first content chunk (64 characters), then more chunks 80 ms apart.
    const reply = { note: `key ${secret} seen`, narration: 'Bob reads a note on the bench. '.repeat(6) };
    const model = await startScriptedModel({
      script: { rules: [], default: { json: reply, chunk_chars: 64, chunk_delay_ms: 80 } },
    });
    try {
      const source = await putResponseSource(store, SOURCE);
      const batches: string[] = [];
      const watcher = setInterval(() => {
        void store.all<{ chunks_json: string }>('SELECT chunks_json FROM llm_call_chunks').then(
          (rows) => batches.push(...rows.map((r) => r.chunks_json)),
          () => {},
        );
      }, PROGRESS_INTERVAL_MS / 4);
      const out = await invokeSource(store, {
        source,
        request: REQUEST,
        kind: 'llm_generation',
        env: { NOEMA_LLM_BASE_URL: model.url, NOEMA_LLM_API_KEY: secret },
      });
      clearInterval(watcher);
      assert.equal(out.ok, true, out.error?.message);
      assert.ok(
        batches.some((b) => b.includes('[REDACTED]')),
        'a batch holding the secret chunk was seen mid-stream',
      );
      for (const b of batches) assert.equal(b.includes(secret), false, 'a batch kept the secret');
      const call = await getLlmCall(store, out.llm_call_id!);
      assert.equal(JSON.stringify(call).includes(secret), false, 'the finished call kept the secret');
      assert.match(contentOf(call.chunks as Array<{ data: string }>), /key \[REDACTED\] seen/);
    } finally {
      await model.close();
      await dispose();
    }
  });
});
