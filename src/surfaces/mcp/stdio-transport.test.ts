/**
 * The stdio transport's spliced answers in pooled memory, written to a real socket on 127.0.0.1
 * (as a pipe or a terminal is written: a stream over a file descriptor): an answer's memory goes
 * back to the pool only once the socket has written it out, so an answer written while an earlier
 * one waits for its reader cannot overwrite it. No store: the stored JSON is made here.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Socket } from 'node:net';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { poolStats } from '../../core/byte-pool.ts';
import { SplicingStdioTransport } from './stdio-transport.ts';

// Each answer (its structured content, and its text escaped) larger than what a loopback socket
// buffers, so an unread answer stays in Node's hands, and within what the pool lends (16 MB).
const SIZE = 4 << 20;

/** An answer to call `id` carrying stored JSON of about SIZE bytes: a string of `fill`s. */
function answer(transport: SplicingStdioTransport, id: number, fill: string): JSONRPCMessage {
  const splice = transport.spliceFor(new AbortController().signal);
  const json = [Buffer.from(JSON.stringify({ fill: fill.repeat(SIZE) }))];
  return {
    jsonrpc: '2.0',
    id,
    result: {
      content: [{ type: 'text', text: splice.standInText(json) }],
      structuredContent: splice.standIn(json),
    },
  };
}

/** The line's answer, checked whole: its structured content and text hold `fill` only. */
function assertAnswer(line: string, id: number, fill: string): void {
  const parsed = JSON.parse(line) as {
    id: number;
    result: { content: Array<{ text: string }>; structuredContent: { fill: string } };
  };
  assert.equal(parsed.id, id);
  const expected = fill.repeat(SIZE);
  assert.ok(
    parsed.result.structuredContent.fill === expected,
    `answer ${id}: its structured content changed`,
  );
  assert.ok(
    parsed.result.content[0]!.text === JSON.stringify({ fill: expected }),
    `answer ${id}: its text changed`,
  );
}

async function socketPair(): Promise<{ writer: Socket; reader: Socket; close: () => void }> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const accepted = once(server, 'connection');
  const { createConnection } = await import('node:net');
  const writer = createConnection((server.address() as { port: number }).port, '127.0.0.1');
  await once(writer, 'connect');
  const [reader] = (await accepted) as [Socket];
  return {
    writer,
    reader,
    close: () => {
      writer.destroy();
      reader.destroy();
      server.close();
    },
  };
}

test('an answer still being written keeps its memory: the answer after it is written elsewhere', async () => {
  const { writer, reader, close } = await socketPair();
  try {
    reader.pause();
    const transport = new SplicingStdioTransport(new PassThrough(), writer);
    const before = poolStats();
    // A is written into pooled memory and waits for its reader; B is made while A waits.
    const sentA = transport.send(answer(transport, 1, 'a'));
    const sentB = transport.send(answer(transport, 2, 'b'));
    assert.equal(poolStats().taken, before.taken + 2, 'both answers were written into pooled memory');
    assert.equal(poolStats().lent, before.lent + 2, 'neither gave its memory back before it was written out');
    // Now the reader reads both: had A's memory gone back early, B would have been written into it.
    const chunks: Buffer[] = [];
    reader.on('data', (d: Buffer) => chunks.push(d));
    reader.resume();
    await Promise.all([sentA, sentB]);
    while (Buffer.concat(chunks).toString().split('\n').length < 3) await once(reader, 'data');
    const [lineA, lineB] = Buffer.concat(chunks).toString().split('\n');
    assertAnswer(lineA!, 1, 'a');
    assertAnswer(lineB!, 2, 'b');
    // Written out: both given back, to be lent again.
    await new Promise((r) => setImmediate(r));
    assert.equal(poolStats().lent, before.lent);
  } finally {
    close();
  }
});

test('a stream not over a file descriptor gets answers in memory of their own', async () => {
  const out = new PassThrough();
  const transport = new SplicingStdioTransport(new PassThrough(), out);
  const before = poolStats();
  const lines: Buffer[] = [];
  out.on('data', (d: Buffer) => lines.push(d));
  await transport.send(answer(transport, 3, 'c'));
  // A PassThrough holds the very buffer it was written until it is read: pooled, it could be reused.
  assert.equal(poolStats().taken, before.taken);
  assertAnswer(Buffer.concat(lines).toString().trimEnd(), 3, 'c');
});
