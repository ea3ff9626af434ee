/**
 * A client's keep-alive connection, idle for longer than Node's default keep-alive timeout (5 s),
 * still carries its next request: a server that closed it first would race the request sent on it,
 * which the client sees as a reset. Pinned to SQLite: connection handling does not touch the store.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { openTestStore, type TestStore } from '../../src/testing/stores.ts';
import { startTestHttp, type TestHttp } from './helpers.ts';

let ts: TestStore;
let http: TestHttp;
before(async () => {
  ts = await openTestStore('sqlite');
  http = await startTestHttp(ts.store);
});
after(async () => {
  await http?.close();
  await ts?.dispose();
});

/** Sends one GET on `socket` and resolves with the answer's head, or rejects if the socket ends first. */
function getOn(socket: Socket, host: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      const length = Number(/content-length: (\d+)/i.exec(text)?.[1] ?? Number.NaN);
      if (end >= 0 && text.length >= end + 4 + length) {
        done();
        resolve(text.slice(0, end));
      }
    };
    const onEnd = () => {
      done();
      reject(new Error('the server closed the connection'));
    };
    const done = () => {
      socket.off('data', onData);
      socket.off('end', onEnd);
      socket.off('error', onEnd);
    };
    socket.on('data', onData);
    socket.on('end', onEnd);
    socket.on('error', onEnd);
    socket.write(`GET /healthz HTTP/1.1\r\nhost: ${host}\r\nconnection: keep-alive\r\n\r\n`);
  });
}

test('a keep-alive connection idle for 6 s answers its next request', async () => {
  const { hostname, port } = new URL(http.url);
  const socket = connect(Number(port), hostname);
  await once(socket, 'connect');
  try {
    assert.match(await getOn(socket, `${hostname}:${port}`), /^HTTP\/1\.1 200/);
    await sleep(6_000);
    assert.match(await getOn(socket, `${hostname}:${port}`), /^HTTP\/1\.1 200/);
  } finally {
    socket.destroy();
  }
});
