/**
 * The model's API key echoed in a streamed reply never reaches a reader, wherever the stream's
 * pieces split it: not the live `text_delta` frames joined, not the stored chunks joined (the
 * batches written while the call streams, and the finished call's).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ModelScript } from '../../src/dev/scripted-model/index.ts';
import type { SessionEvent } from '../../src/runtimes/agent/index.ts';
import { getLlmCall } from '../../src/sources/index.ts';
import type { Store } from '../../src/store/store.ts';
import { startAgentKit } from '../../src/testing/agent-kit.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { reasoningReply } from '../../src/testing/strict-replies.ts';

const API_KEY = 'sk-e2e-0123456789abcdef';
const CHUNK_CHARS = 5;

/** A reply whose `response` echoes the key after `pad` characters: each pad moves the key's place in the chunks. */
const answer = (pad: number) => `${'x'.repeat(pad)} the key is ${API_KEY}, keep it safe.`;

function script(): ModelScript {
  const echo = (pad: number, chunk_chars: number) => ({
    match: { last_message_contains: `turn ${pad}/${chunk_chars}` },
    reply: {
      chunk_chars,
      chunk_delay_ms: chunk_chars === 1 ? 2 : 40,
      json: reasoningReply({ thinking: 'echo', response: answer(pad), switch_mode: null }),
    },
  });
  return {
    rules: [
      { match: { any_message_contains: 'Extract user insights' }, reply: { json: {} } },
      ...Array.from({ length: CHUNK_CHARS }, (_, pad) => echo(pad, CHUNK_CHARS)),
      echo(0, 1),
    ],
    default: { json: reasoningReply({ thinking: 't', response: 'ok' }) },
  };
}

/** The assistant text the chunks carry, joined. */
function contentOf(chunks: Array<{ data: string }>): string {
  let text = '';
  for (const c of chunks) {
    if (c.data.trim() === '[DONE]') continue;
    const e = JSON.parse(c.data) as { choices?: Array<{ delta?: { content?: string } }> };
    text += e.choices?.[0]?.delta?.content ?? '';
  }
  return text;
}

/** Reads every call's stored chunks as they stand, until `stop`: what a reader sees while the calls stream. */
function watchStoredChunks(store: Store): { stop(): Promise<string[]> } {
  const seen: string[] = [];
  let running = true;
  const loop = (async () => {
    while (running) {
      const calls = await store.all<{ source_invocation_id: string }>(
        "SELECT source_invocation_id FROM source_invocations WHERE invocation_kind = 'llm_generation' AND status = 'running'",
      );
      for (const c of calls) {
        const call = await getLlmCall(store, c.source_invocation_id).catch(() => null);
        if (call) seen.push(contentOf(call.chunks as Array<{ data: string }>));
      }
      await new Promise((r) => setTimeout(r, 15));
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return seen;
    },
  };
}

describeEachStore('a streamed API key is redacted across chunk boundaries', (factory) => {
  test('the key split at every offset: no live deltas joined, no stored chunks joined hold it', async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startAgentKit(store, {
        script: script(),
        env: { NOEMA_LLM_API_KEY: API_KEY },
        definition: { emotion: { enabled: false }, synthesis: { enabled: false, threshold: 3 } },
      });
      const watch = watchStoredChunks(store);
      try {
        const rt = kit.runtime;
        const turns = [...Array.from({ length: CHUNK_CHARS }, (_, pad) => [pad, CHUNK_CHARS]), [0, 1]];
        let batchesSeen = 0;
        for (const [pad, chunkChars] of turns) {
          const { session_id } = await rt.createSession({ agent_label: 'calculator', user_id: 'ada' });
          const events: SessionEvent[] = [];
          const turn = await rt.sendMessage(session_id, { content: `turn ${pad}/${chunkChars}` }, (e) =>
            events.push(e),
          );
          const what = `pad ${pad}, ${chunkChars} characters a chunk`;
          // The key did stream: the model was asked with it, and the pieces carry the rest whole.
          // Deltas by model call (a turn may stream more than one reply).
          const byCall = new Map<string, string>();
          for (const e of events.filter((x) => x.event === 'text_delta')) {
            const id = e.data.contract_id as string;
            byCall.set(id, (byCall.get(id) ?? '') + (e.data.delta as string));
          }
          for (const joined of byCall.values())
            assert.equal(joined.includes(API_KEY), false, `live deltas joined hold the key (${what})`);
          const deltas = [...byCall.values()].find((d) => d.includes('the key is')) ?? '';
          assert.equal(deltas, answer(pad!).replace(API_KEY, '[REDACTED]'), `no text is lost (${what})`);
          const texts = events.filter((e) => e.event === 'text').map((e) => e.data.text);
          assert.ok(
            texts.includes(deltas),
            `the stored text event is what the deltas said: ${JSON.stringify(texts)}`,
          );
          assert.equal(turn.response?.includes(API_KEY), false);

          const calls = await store.all<{ source_invocation_id: string }>(
            "SELECT source_invocation_id FROM source_invocations WHERE run_id = ? AND invocation_kind = 'llm_generation'",
            [turn.run_id],
          );
          for (const c of calls) {
            const call = await getLlmCall(store, c.source_invocation_id);
            const chunks = call.chunks as Array<{ data: string }>;
            assert.ok(chunks.length > 3);
            assert.equal(
              chunks
                .map((x) => x.data)
                .join('')
                .includes(API_KEY),
              false,
              `stored chunks joined hold the key (${what})`,
            );
            const content = contentOf(chunks);
            assert.equal(content.includes(API_KEY), false, `stored content joined holds the key (${what})`);
            if (content.includes('the key is')) {
              assert.ok(
                content.includes('[REDACTED], keep it safe.'),
                `the stored stream is whole (${what})`,
              );
            }
          }
        }
        const seen = await watch.stop();
        batchesSeen = seen.filter((s) => s.length > 0).length;
        assert.ok(batchesSeen > 0, 'chunks were read while calls streamed');
        for (const s of seen) assert.equal(s.includes(API_KEY), false, 'chunk batches joined hold the key');
        // The model was given the key (the test would pass vacuously otherwise).
        assert.ok(kit.model.requests.some((r) => r.headers.authorization === `Bearer ${API_KEY}`));
      } finally {
        await watch.stop();
        await kit.close();
      }
    });
  });
});
