/**
 * Reading a streamed completion from a real HTTP server on 127.0.0.1: what happens at `[DONE]` to
 * the rest of the body, and to the connection.
 */
import assert from 'node:assert/strict';
import { createServer, type ServerResponse } from 'node:http';
import { test } from 'node:test';
import { serveDuringTests } from '../../testing/local-server.ts';
import { sendHttp } from '../http-transport.ts';
import { newStreamState, readCompletionStream } from './stream.ts';

const EVENTS = 'data: {"choices":[{"delta":{"content":"hi"}}]}\n\ndata: [DONE]\n\n';

type After = 'end' | 'stall' | 'more' | 'together' | 'junk';
/** Per request: the client's port (a reused connection keeps it) and whether the body was cut. */
const seen: Array<{ port: number; cut: boolean }> = [];
const server = createServer((req, res: ServerResponse) => {
  const mode = new URL(req.url ?? '/', 'http://x').searchParams.get('after') as After | 'fail';
  const record = { port: req.socket.remotePort ?? 0, cut: false };
  seen.push(record);
  res.on('close', () => {
    if (!res.writableFinished) record.cut = true;
  });
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const first = mode === 'fail' ? 'data: not json\n\n' : EVENTS;
  if (mode === 'end') return res.end(first);
  // What follows [DONE] in the same write: a later event, or the start of one cut short.
  if (mode === 'together') return res.end(`${EVENTS}data: {"late":1}\n\n`);
  if (mode === 'junk') return res.end(`${EVENTS}: keep-alive\n\ndata: {"choices":[{"delta":`);
  res.write(first);
  // The rest comes later, or never: the reader must not wait for it.
  if (mode === 'more') setTimeout(() => res.write('data: {"late":1}\n\n'), 20).unref();
});
const base = serveDuringTests(server);

async function read(mode: After | 'fail') {
  const res = await sendHttp(`${base()}/?after=${mode}`, {
    method: 'GET',
    headers: {},
    signal: new AbortController().signal,
  });
  const state = newStreamState();
  const done = readCompletionStream(res, state, Date.now());
  return { state, done };
}

/** Waits until the server has seen the request's end (or cut), bounded. */
async function settled(): Promise<void> {
  for (let i = 0; i < 100 && seen.at(-1) && !seen.at(-1)!.cut; i++) {
    await new Promise((r) => setTimeout(r, 5));
  }
}

test('a body that ends right after [DONE] is read to its end, and its connection serves the next call', async () => {
  const first = await read('end');
  await first.done;
  assert.equal(first.state.rawText, 'hi');
  const second = await read('end');
  await second.done;
  const [a, b] = seen.slice(-2);
  assert.equal(b!.port, a!.port, 'the second call reused the first call’s connection');
});

test('a body still open after [DONE] is cut at once, and what follows [DONE] is not read', async () => {
  for (const mode of ['stall', 'more'] as const) {
    const { state, done } = await read(mode);
    await done;
    assert.equal(state.rawText, 'hi', mode);
    assert.equal(state.chunks.length, 2, `${mode}: [DONE] is the last event recorded`);
    await settled();
    assert.equal(seen.at(-1)!.cut, true, `${mode}: the server saw its response cut`);
  }
});

test('what follows [DONE] in the same piece of the body is not read either', async () => {
  for (const mode of ['together', 'junk'] as const) {
    const { state, done } = await read(mode);
    await done;
    assert.equal(state.rawText, 'hi', mode);
    assert.deepEqual(
      state.chunks.map((c) => c.data),
      ['{"choices":[{"delta":{"content":"hi"}}]}', '[DONE]'],
      `${mode}: [DONE] is the last event recorded`,
    );
  }
});

test('a failure while reading cuts the body', async () => {
  const { done } = await read('fail');
  await assert.rejects(done, /not JSON/);
  await settled();
  assert.equal(seen.at(-1)!.cut, true);
});
