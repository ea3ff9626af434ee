/**
 * Replays of one streamed completion written every way SSE allows — lines ending in LF, CRLF or a
 * bare CR, a byte-order mark, comments, `retry:` and `id:` lines, `event:` names, a field without
 * a space — whole and cut into small pieces, from a real HTTP server on 127.0.0.1: each reads the
 * same events, with their data as sent.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { test } from 'node:test';
import { serveDuringTests } from '../../testing/local-server.ts';
import { sendHttp } from '../http-transport.ts';
import { newStreamState, readCompletionStream } from './stream.ts';

const EVENTS = [
  '{"choices":[{"delta":{"role":"assistant","content":""}}]}',
  '{"choices":[{"delta":{"content":"{\\"ok\\":"}}]}',
  '{"choices":[{"delta":{"content":"true}"},"finish_reason":"stop"}]}',
  '{"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}',
];

/** The stream with `eol` line ends, its extras (comments, retry, id, event) in between. */
function body(eol: string, bom: boolean): string {
  const lines: string[] = [': OPENROUTER PROCESSING', '', 'retry: 3000', ''];
  for (const [i, e] of EVENTS.entries()) {
    if (i === 1) lines.push(': keep-alive');
    if (i === 2) lines.push(`id: ${i}`, 'event: message', `data:${e}`, '');
    else lines.push(`data: ${e}`, '');
  }
  lines.push('data: [DONE]', '');
  return (bom ? '\uFEFF' : '') + lines.join(eol) + eol;
}

const server = createServer((req, res) => {
  const u = new URL(req.url ?? '/', 'http://x');
  const eol = { lf: '\n', crlf: '\r\n', cr: '\r' }[u.searchParams.get('eol') as 'lf' | 'crlf' | 'cr'];
  const text = Buffer.from(body(eol, u.searchParams.get('bom') === '1'));
  const piece = Number(u.searchParams.get('piece') ?? 0);
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  if (!piece) return res.end(text);
  // Small pieces, each its own write after a turn of the event loop: lines and CRLF pairs split.
  let at = 0;
  const next = () => {
    if (at >= text.length) return res.end();
    res.write(text.subarray(at, at + piece));
    at += piece;
    setTimeout(next, 1);
  };
  next();
});
const base = serveDuringTests(server);

async function read(query: string) {
  const res = await sendHttp(`${base()}/?${query}`, {
    method: 'GET',
    headers: {},
    signal: new AbortController().signal,
  });
  const state = newStreamState();
  await readCompletionStream(res, state, Date.now());
  return state;
}

for (const eol of ['lf', 'crlf', 'cr'] as const) {
  for (const bom of [false, true]) {
    test(`lines ending in ${eol.toUpperCase()}${bom ? ' after a BOM' : ''}: every event, whole or in pieces`, async () => {
      for (const piece of [0, 1, 5]) {
        const state = await read(`eol=${eol}&bom=${bom ? 1 : 0}&piece=${piece}`);
        const what = `${eol} bom=${bom} piece=${piece}`;
        assert.deepEqual(
          state.chunks.map((c) => c.data),
          [...EVENTS, '[DONE]'],
          what,
        );
        assert.equal(state.rawText, '{"ok":true}', what);
        assert.equal(state.finishReason, 'stop', what);
        assert.deepEqual(state.usage, { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 }, what);
        // Each event keeps its time: offsets never go back.
        for (let i = 1; i < state.chunks.length; i++)
          assert.ok(state.chunks[i]!.offset_ms >= state.chunks[i - 1]!.offset_ms, what);
      }
    });
  }
}
