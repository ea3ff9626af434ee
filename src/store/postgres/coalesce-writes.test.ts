/** What a pipelined connection is sent in one turn leaves in one write, in order. */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { coalesceWrites } from './coalesce-writes.ts';

/** A sink that records each write it is handed: one chunk, or several at once. */
function sink(): { stream: Writable; writes: string[][] } {
  const writes: string[][] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      writes.push([chunk.toString()]);
      done();
    },
    writev(chunks, done) {
      writes.push(chunks.map((c) => (c.chunk as Buffer).toString()));
      done();
    },
  });
  return { stream, writes };
}

test('the writes of one turn, its microtasks included, leave as one write in their order', async () => {
  const { stream, writes } = sink();
  coalesceWrites(stream);
  stream.write('BEGIN');
  await Promise.resolve();
  stream.write('INSERT');
  queueMicrotask(() => stream.write('COMMIT'));
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(writes, [['BEGIN', 'INSERT', 'COMMIT']]);
  // A later turn is a write of its own, however the writer corks inside it.
  stream.cork();
  stream.write('SELECT');
  stream.uncork();
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(writes, [['BEGIN', 'INSERT', 'COMMIT'], ['SELECT']]);
});

test('a stream ended in the turn of its last write sends it', async () => {
  const { stream, writes } = sink();
  coalesceWrites(stream);
  stream.write('X');
  stream.end('TERMINATE');
  await new Promise((r) => stream.on('finish', r));
  assert.deepEqual(writes.flat(), ['X', 'TERMINATE']);
});
