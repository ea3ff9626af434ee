/**
 * Pieces sent as one body through reused buffers, over a real node:http server on 127.0.0.1 and
 * real sockets (no store: nothing here is stored). A buffer goes back to the pool only once its
 * response has been handed to the operating system: a client that stops reading keeps its answer's
 * buffer out of the pool, so answers sent meanwhile cannot overwrite it.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { test } from 'node:test';
import { poolStats } from '../../core/byte-pool.ts';
import { joinPieces } from './json-pieces.ts';

const pooledBuffers = () => poolStats().free;

// Larger than what loopback sockets buffer, so an unread answer stays in Node's hands.
const SIZE = 12 << 20;

/** `SIZE` bytes of `fill`, as 1 000 pieces. */
function piecesOf(fill: number): Buffer[] {
  const whole = Buffer.alloc(SIZE, fill);
  const out: Buffer[] = [];
  const step = Math.ceil(SIZE / 1000);
  for (let at = 0; at < SIZE; at += step) out.push(whole.subarray(at, Math.min(SIZE, at + step)));
  return out;
}

async function serve(): Promise<{ server: Server; url: string; handled: () => Promise<void> }> {
  let onHandled: () => void = () => undefined;
  const server = createServer((req, res) => {
    const fill = Number(req.url?.slice(1));
    const body = joinPieces(piecesOf(fill), res);
    res.writeHead(200, { 'content-length': String(body.byteLength) });
    res.end(body);
    onHandled();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address() as { port: number };
  return {
    server,
    url: `http://127.0.0.1:${address.port}`,
    handled: () =>
      new Promise<void>((resolve) => {
        onHandled = resolve;
      }),
  };
}

function assertFilled(body: Buffer, fill: number, what: string): void {
  assert.equal(body.length, SIZE, `${what}: length`);
  const wrong = body.findIndex((b) => b !== fill);
  assert.equal(wrong, -1, `${what}: byte ${wrong} is ${body[wrong]}, not ${fill}`);
}

test('an answer still being sent keeps its buffer: answers sent meanwhile reuse others and leave it intact', async () => {
  const { server, url, handled } = await serve();
  try {
    // A: asks, then reads nothing until the others are done.
    const port = Number(new URL(url).port);
    const a = connect(port, '127.0.0.1');
    await once(a, 'connect');
    a.pause();
    const aHandled = handled();
    a.write('GET /1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    await aHandled;
    const pooledBefore = pooledBuffers();
    // B and C, one after the other: B's buffer goes back when B has finished, and C takes it.
    const b = Buffer.from(await (await fetch(`${url}/2`)).arrayBuffer());
    assertFilled(b, 2, 'B');
    await new Promise((r) => setImmediate(r));
    assert.equal(pooledBuffers(), pooledBefore + 1, "B's buffer is back in the pool once B finished");
    const c = Buffer.from(await (await fetch(`${url}/3`)).arrayBuffer());
    assertFilled(c, 3, 'C');
    // Now A reads its whole answer: had its buffer gone back early, B or C would have written into it.
    const chunks: Buffer[] = [];
    a.on('data', (d: Buffer) => chunks.push(d));
    a.resume();
    await once(a, 'end');
    const raw = Buffer.concat(chunks);
    const bodyAt = raw.indexOf('\r\n\r\n') + 4;
    assertFilled(raw.subarray(bodyAt), 1, 'A');
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

test('without a Node response to wait for, the pieces are joined into a buffer of their own', () => {
  const pieces = [Buffer.from('{"a":'), Buffer.from('1'), Buffer.from('}')];
  const pooled = pooledBuffers();
  assert.equal(Buffer.from(joinPieces(pieces, undefined)).toString(), '{"a":1}');
  assert.equal(pooledBuffers(), pooled);
});
