/**
 * A secret split across streamed events, read from a real HTTP server on 127.0.0.1: each streamed
 * text (content, reasoning, a tool call's arguments) is redacted as observed and as stored, and
 * what a window still holds when the stream ends is given back, not lost.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { test } from 'node:test';
import { serveDuringTests } from '../../testing/local-server.ts';
import { sendHttp } from '../http-transport.ts';
import { createRedactor, REDACTED } from '../redact.ts';
import { decodeChunks } from './chunk-codec.ts';
import { newStreamState, readCompletionStream, settledChunks } from './stream.ts';
import { encodeChunk } from './trace.ts';

const SECRET = 'sk-unit-0123456789';
const redactor = createRedactor([SECRET]);

const bodies = new Map<string, string>();
const server = createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(bodies.get(req.url ?? '') ?? '');
});
const base = serveDuringTests(server);

const sse = (events: unknown[]) =>
  `${events.map((e) => `data: ${JSON.stringify(e)}\n\n`).join('')}data: [DONE]\n\n`;
const content = (c: string) => ({ choices: [{ delta: { content: c } }] });

async function stream(name: string, events: unknown[]) {
  bodies.set(`/${name}`, sse(events));
  const res = await sendHttp(`${base()}/${name}`, {
    method: 'GET',
    headers: {},
    signal: new AbortController().signal,
  });
  const state = newStreamState();
  state.windowOf = () => redactor.stream();
  const observed: string[] = [];
  let seen = 0;
  // How many chunks were final as stored once the finish event was read.
  let settledAtFinish: number | null = null;
  await readCompletionStream(res, state, Date.now(), () => {
    observed.push(state.cleanText.slice(seen));
    seen = state.cleanText.length;
    if (state.finishReason !== null && settledAtFinish === null) settledAtFinish = settledChunks(state);
  });
  observed.push(state.cleanText.slice(seen));
  const stored = state.chunks.map((_, i) => encodeChunk(state.chunks, i, redactor));
  const decoded = decodeChunks(`[${stored.join(',')}]`, 'test').map(([, data]) => data);
  return { state, observed: observed.join(''), decoded, settledAtFinish };
}

/** `text` cut before each of `at`. */
const cut = (text: string, at: number[]) =>
  [0, ...at].map((from, i) => text.slice(from, [...at, text.length][i]));

test('a secret in the content split at every offset is redacted as observed and as stored, nothing lost', async () => {
  const text = `say ${SECRET} twice: ${SECRET}`;
  const want = `say ${REDACTED} twice: ${REDACTED}`;
  for (let i = 1; i < text.length; i++) {
    const { state, observed, decoded } = await stream(`content-${i}`, cut(text, [i]).map(content));
    assert.equal(state.rawText, text, 'the answer itself is read whole');
    assert.equal(observed, want, `observed, split at ${i}`);
    const joined = decoded
      .filter((d) => d !== '[DONE]')
      .map((d) => (JSON.parse(d) as { choices: [{ delta: { content: string } }] }).choices[0].delta.content)
      .join('');
    assert.equal(joined, want, `stored, split at ${i}`);
    assert.equal(decoded.join('').includes(SECRET.slice(0, 12)), false);
  }
});

test('what a window holds when the answer finishes goes to the last chunk of its text', async () => {
  const { state, observed, decoded, settledAtFinish } = await stream('tail', [
    content('ends with the start '),
    content('of a key: sk-un'),
    { choices: [{ delta: {}, finish_reason: 'stop' }] },
  ]);
  assert.equal(observed, 'ends with the start of a key: sk-un');
  assert.equal(settledAtFinish, 3, 'the finish event lets the held text go: the batch written then is whole');
  assert.equal(settledChunks(state), state.chunks.length);
  assert.equal(JSON.parse(decoded[1]!).choices[0].delta.content, 'of a key: sk-un');
  assert.equal(state.finishReason, 'stop');
});

test('reasoning and each tool call’s arguments have windows of their own', async () => {
  const args = JSON.stringify({ note: `use ${SECRET}` });
  const [a1, a2, a3] = cut(args, [14, 19]);
  const call = (index: number, part: string) => ({
    choices: [{ delta: { tool_calls: [{ index, function: { arguments: part } }] } }],
  });
  const { decoded } = await stream('tools', [
    { choices: [{ delta: { reasoning_content: `I hold ${SECRET.slice(0, 9)}` } }] },
    { choices: [{ delta: { reasoning_content: `${SECRET.slice(9)} now` } }] },
    call(0, a1!),
    call(1, 'other call'),
    call(0, a2!),
    call(0, a3!),
  ]);
  const all = decoded.join('');
  assert.equal(all.includes('0123456789'), false, all);
  const events = decoded.filter((d) => d !== '[DONE]').map((d) => JSON.parse(d));
  const reasoning = events.map((e) => e.choices[0].delta.reasoning_content ?? '').join('');
  assert.equal(reasoning, `I hold ${REDACTED} now`);
  const argsOf = (index: number) =>
    events
      .flatMap((e) => e.choices[0].delta.tool_calls ?? [])
      .filter((c: { index: number }) => c.index === index)
      .map((c: { function: { arguments: string } }) => c.function.arguments)
      .join('');
  assert.equal(argsOf(0), JSON.stringify({ note: `use ${REDACTED}` }));
  assert.equal(argsOf(1), 'other call');
});
