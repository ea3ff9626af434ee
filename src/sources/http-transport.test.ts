/** The sources' HTTP transport against a real server on 127.0.0.1. */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { serveDuringTests } from '../testing/local-server.ts';
import { sendHttp } from './http-transport.ts';

const hits: string[] = [];
const BIG = 16 << 20;
const big = { written: 0 };
const pattern = (from: number, n: number) =>
  Buffer.from(Array.from({ length: n }, (_, i) => (from + i) % 251));
const server = createServer((req, res) => {
  hits.push(req.url ?? '');
  if (req.url === '/moved') {
    res.writeHead(302, { location: '/elsewhere' });
    return res.end();
  }
  if (req.url === '/echo') {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d) => {
      body += d;
    });
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json', 'x-two': ['a', 'b'] });
      res.end(JSON.stringify({ method: req.method, body, length: req.headers['content-length'] }));
    });
    return;
  }
  if (req.url === '/big') {
    // 16 MB of a repeating pattern (byte i is i % 251), written as fast as the client takes them;
    // `written` counts what the server got rid of so far.
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    big.written = 0;
    const more = () => {
      while (big.written < BIG) {
        const piece = pattern(big.written, 1 << 16);
        big.written += piece.length;
        if (!res.write(piece)) return res.once('drain', more);
      }
      res.end();
    };
    return more();
  }
  if (req.url === '/silent') return; // never answers
  // /hang: headers, a first piece, then nothing.
  res.writeHead(200, { 'content-type': 'text/plain' });
  res.write('first');
});
const base = serveDuringTests(server);

const open = () => new AbortController().signal;

async function readAll(res: Awaited<ReturnType<typeof sendHttp>>): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for (let c = await res.read(); c !== null; c = await res.read()) parts.push(c);
  return Buffer.concat(parts);
}

test('a request carries its method, body and content-length; the reply its status and every header', async () => {
  const res = await sendHttp(`${base()}/echo`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"é":1}',
    signal: open(),
  });
  assert.equal(res.status, 200);
  assert.equal(res.ok, true);
  assert.equal(res.header('Content-Type'), 'application/json');
  assert.equal(res.header('x-two'), 'a, b');
  assert.equal(res.headers()['x-two'], 'a, b');
  assert.deepEqual(JSON.parse((await readAll(res)).toString()), {
    method: 'POST',
    body: '{"é":1}',
    length: '8',
  });
});

test('a redirect is an answer, never followed: the configured URL is the only one called', async () => {
  hits.length = 0;
  const res = await sendHttp(`${base()}/moved`, { method: 'GET', headers: {}, signal: open() });
  assert.equal(res.status, 302);
  assert.equal(res.ok, false);
  assert.equal(res.header('location'), '/elsewhere');
  await readAll(res);
  assert.deepEqual(hits, ['/moved']);
});

test('a body the reader does not take waits in the socket, not in memory; read later it is whole and in order', async () => {
  const res = await sendHttp(`${base()}/big`, { method: 'GET', headers: {}, signal: open() });
  const first = await res.read();
  // The reader stops: past 1 MB buffered the transport pauses the socket, so the server is held
  // back by TCP flow control (a few MB of kernel buffers at most), not allowed to send all 16 MB.
  await new Promise((r) => setTimeout(r, 300));
  assert.ok(big.written < 12 << 20, `the server wrote ${big.written} bytes while nobody read`);
  let at = 0;
  for (let c: Uint8Array | null = first; c !== null; c = await res.read()) {
    assert.ok(Buffer.from(c).equals(pattern(at, c.byteLength)), `bytes at ${at} are out of order`);
    at += c.byteLength;
  }
  assert.equal(at, BIG);
});

test('aborting mid-body rejects the pending read with the abort', async () => {
  const ac = new AbortController();
  const res = await sendHttp(`${base()}/hang`, { method: 'GET', headers: {}, signal: ac.signal });
  assert.equal(Buffer.from((await res.read())!).toString(), 'first');
  const pending = res.read();
  ac.abort(new Error('deadline'));
  await assert.rejects(pending, /deadline/, 'the read rejects with the abort’s reason');
});

test('aborting while the answer is awaited rejects the request', async () => {
  const ac = new AbortController();
  const sent = sendHttp(`${base()}/silent`, { method: 'GET', headers: {}, signal: ac.signal });
  setTimeout(() => ac.abort(new Error('deadline')), 50);
  await assert.rejects(sent, { name: 'AbortError' });
});

test('aborting before sending rejects the request; a refused connection rejects with its code', async () => {
  const ac = new AbortController();
  ac.abort();
  await assert.rejects(sendHttp(`${base()}/echo`, { method: 'GET', headers: {}, signal: ac.signal }), {
    name: 'AbortError',
  });
  const closed = createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((resolve) => closed.close(() => resolve()));
  await assert.rejects(
    sendHttp(`http://127.0.0.1:${port}/`, { method: 'GET', headers: {}, signal: open() }),
    {
      code: 'ECONNREFUSED',
    },
  );
});

test('endsNow tells a body that has ended from one still open', async () => {
  const ended = await sendHttp(`${base()}/moved`, { method: 'GET', headers: {}, signal: open() });
  assert.equal(await ended.endsNow(), true);
  const open1 = await sendHttp(`${base()}/hang`, { method: 'GET', headers: {}, signal: open() });
  await open1.read();
  assert.equal(await open1.endsNow(), false);
  open1.cancel();
});
