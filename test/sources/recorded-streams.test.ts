/**
 * Streams and error bodies recorded from the providers themselves (each file under
 * `recorded-streams/` names where it was copied from), served byte for byte over HTTP on 127.0.0.1
 * and read by the LLM source's own stream reader: the content, the refusal, the usage, the finish
 * reason, the comments skipped, the error classed.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { sendHttp } from '../../src/sources/http-transport.ts';
import { endedBadly, upstreamFailure } from '../../src/sources/llm/outcome.ts';
import { providerProfile } from '../../src/sources/llm/providers.ts';
import { normalizeAssistantText } from '../../src/sources/llm/request.ts';
import { newStreamState, readCompletionStream } from '../../src/sources/llm/stream.ts';
import { tokensOf } from '../../src/sources/llm/usage.ts';

const DIR = new URL('./recorded-streams/', import.meta.url);
const recorded = (name: string) => readFileSync(new URL(name, DIR));

/** Serves `body` once with `status` and `type`; answers with the reply as `sendHttp` gives it. */
async function served(body: Buffer | string, status = 200, type = 'text/event-stream') {
  const server = createServer((_req, res) => {
    res.writeHead(status, { 'content-type': type });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const reply = await sendHttp(`http://127.0.0.1:${port}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
    signal: AbortSignal.timeout(10_000),
  });
  return { reply, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

async function readRecorded(name: string) {
  const { reply, close } = await served(recorded(name));
  try {
    const state = newStreamState();
    await readCompletionStream(reply, state, Date.now());
    return state;
  } finally {
    await close();
  }
}

test('every recorded stream names its source', () => {
  for (const name of [
    'openai-structured-output.sse',
    'openai-refusal.sse',
    'openrouter-processing-comment.sse',
  ]) {
    // The header: the SSE comment lines before the first blank line (a reader skips them).
    const header = recorded(name).toString('utf8').split('\n\n')[0]!;
    assert.ok(
      header.split('\n').every((l) => l.startsWith(': ')),
      name,
    );
    assert.match(
      header,
      /https:\/\/github\.com\/openai\/openai-node\/blob\/[0-9a-f]{40}\/|openrouter\.ai\/docs/,
      name,
    );
  }
  assert.match(
    JSON.parse(recorded('anthropic-not-found.json').toString('utf8')).source,
    /docs\.anthropic\.com/,
  );
});

test("OpenAI's recorded structured-output stream reads as its JSON reply, finish reason stop and its usage", async () => {
  const state = await readRecorded('openai-structured-output.sse');
  assert.deepEqual(JSON.parse(normalizeAssistantText(state.rawText)), { city: 'San Francisco', units: 'f' });
  assert.equal(state.finishReason, 'stop');
  const tokens = tokensOf(state.usage);
  assert.equal(tokens.input, 71);
  assert.equal(tokens.output, 10);
  // The recording predates the details objects: cached and reasoning tokens are not reported.
  assert.deepEqual(tokens.not_reported, ['cached', 'reasoning']);
  // Every event but [DONE] is recorded once, in order.
  assert.equal(state.chunks.length, 14);
  assert.equal(state.refusalText, '');
  assert.equal(endedBadly(state, {}, []), null);
});

test("OpenAI's recorded refusal is the refusal failure class, its text recorded, with the usage of the call", async () => {
  const state = await readRecorded('openai-refusal.sse');
  assert.equal(state.rawText, '');
  const artifacts: Array<{ kind: string; content: unknown }> = [];
  const failure = endedBadly(state, {}, artifacts);
  assert.equal(failure?.failureClass, 'refusal');
  assert.equal(state.refusalText, "I'm sorry, but I can't assist with that request.");
  assert.deepEqual(artifacts, [{ kind: 'refusal', content: { text: state.refusalText } }]);
  assert.equal(tokensOf(state.usage).output, 12);
});

test("OpenRouter's keep-alive comments are skipped: the stream reads as the same reply", async () => {
  const plain = await readRecorded('openai-structured-output.sse');
  const commented = await readRecorded('openrouter-processing-comment.sse');
  assert.equal(commented.rawText, plain.rawText);
  assert.equal(commented.chunks.length, plain.chunks.length);
  assert.deepEqual(commented.usage, plain.usage);
});

test("Anthropic's documented error body is read for its message; a 404 that does not name the model stays http_status", async () => {
  const rec = JSON.parse(recorded('anthropic-not-found.json').toString('utf8')) as {
    status: number;
    body: unknown;
  };
  const { reply, close } = await served(JSON.stringify(rec.body), rec.status, 'application/json');
  try {
    const failure = await upstreamFailure(reply, {}, true, 'LLM call', []);
    assert.equal(failure.failureClass, 'http_status');
    assert.match(failure.message, /answered HTTP 404: The requested resource could not be found\./);
  } finally {
    await close();
  }
});

test("Ollama's stream of a thinking model: the reasoning read from its `reasoning` field, the reply, tokens without details", async () => {
  const { reply, close } = await served(recorded('ollama-thinking.sse'));
  try {
    const state = newStreamState();
    state.reasoningFields = providerProfile('ollama').reasoning;
    await readCompletionStream(reply, state, Date.now());
    assert.equal(state.reasoningText, 'The user asks whether the connection works.');
    assert.deepEqual(JSON.parse(state.rawText), { ok: true });
    assert.equal(state.finishReason, 'stop');
    assert.deepEqual(tokensOf(state.usage).not_reported, ['cached', 'reasoning']);
  } finally {
    await close();
  }
});

test("Ollama's model-not-found body names the model: model_not_found", async () => {
  const rec = JSON.parse(recorded('ollama-model-not-found.json').toString('utf8')) as {
    status: number;
    body: unknown;
  };
  const { reply, close } = await served(JSON.stringify(rec.body), rec.status, 'application/json');
  try {
    const failure = await upstreamFailure(reply, {}, true, 'LLM call', []);
    assert.equal(failure.failureClass, 'model_not_found');
    assert.match(failure.hint ?? '', /model name/);
  } finally {
    await close();
  }
});

test("llama-server's stream reports usage without being asked: the reply, the finish reason and the tokens are read", async () => {
  const state = await readRecorded('llamacpp-usage-unasked.sse');
  assert.deepEqual(JSON.parse(state.rawText), { ok: true });
  assert.equal(state.finishReason, 'stop');
  const tokens = tokensOf(state.usage);
  assert.equal(tokens.input, 77);
  assert.equal(tokens.output, 6);
});
