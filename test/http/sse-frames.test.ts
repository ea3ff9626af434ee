/** A runtime's own SSE frames served through SseStreams: delivered in order, ended on shutdown. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadSessionKey, SessionKeeper } from '../../src/surfaces/http/auth/sessions.ts';
import { SseStreams } from '../../src/surfaces/http/events/index.ts';
import { startHttpServer } from '../../src/surfaces/http/server.ts';
import { connectSse } from '../../src/testing/sse-client.ts';
import { testTempDir } from '../../src/testing/temp-dir.ts';
import { TOKEN } from './helpers.ts';

test('fromFrames streams a runtime’s frames and ends them (and the producer) on shutdown', async () => {
  const sse = new SseStreams();
  let producerClosed = false;
  async function* frames(): AsyncGenerator<string> {
    try {
      yield 'id: 1\nevent: token\ndata: {"t":"he"}\n\n';
      yield 'id: 2\nevent: token\ndata: {"t":"llo"}\n\n';
      for (;;) {
        await new Promise((r) => setTimeout(r, 20)); // a turn still running
        yield ': working\n\n';
      }
    } finally {
      producerClosed = true;
    }
  }
  const server = await startHttpServer({
    host: '127.0.0.1',
    port: 0,
    token: TOKEN,
    sessions: new SessionKeeper(loadSessionKey(testTempDir('noema-frames-'))),
    routes: [
      { method: 'POST', path: '/turns', handle: async ({ c }) => sse.fromFrames(frames(), c.req.raw.signal) },
    ],
  });
  server.onClose(() => sse.close());
  try {
    const res = await fetch(`${server.url}/turns`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    assert.equal(res.headers.get('content-type'), 'text/event-stream; charset=utf-8');
    await res.body?.cancel();
    const client = await connectSse(`${server.url}/turns`, { authorization: `Bearer ${TOKEN}` });
    assert.equal(client.status, 405, 'GET is not the route’s method');
    // connectSse only GETs; read the POST stream by hand.
    const stream = await fetch(`${server.url}/turns`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    const reader = stream.body!.getReader();
    let text = '';
    while (!text.includes('"llo"')) text += new TextDecoder().decode((await reader.read()).value);
    assert.match(text, /id: 1\nevent: token\ndata: \{"t":"he"\}/);
    await server.close();
    for (let i = 0; i < 20 && !(await reader.read()).done; i++);
    for (let i = 0; i < 50 && !producerClosed; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(producerClosed, true, 'the producer is returned at its next yield');
  } finally {
    await server.close().catch(() => {});
  }
});
