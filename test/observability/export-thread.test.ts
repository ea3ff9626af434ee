// Spans are encoded and sent by a thread of their own, never by the thread that runs the runs; a
// flush holds the process until the thread has sent them, and spans still queued never keep a
// process from exiting.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startOtlpReceiver } from './otlp-receiver.ts';

const PROBE = fileURLToPath(new URL('./export-thread-probe.ts', import.meta.url));

/** The probe in a fresh process; the timeout only stops a hung probe (the test then fails). */
async function probe(url: string, count: number, mode: 'flush' | 'no-flush') {
  const r = await promisify(execFile)(process.execPath, [PROBE, url, String(count), mode], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  return JSON.parse(r.stdout.trim().split('\n').at(-1)!) as {
    flushed: boolean;
    exporterHere: boolean;
    dropped: number;
  };
}

test('a flush holds the process until the export thread has sent the spans', async () => {
  const receiver = await startOtlpReceiver();
  try {
    const r = await probe(receiver.url, 5, 'flush');
    assert.equal(r.flushed, true, 'the flush returned (the process did not exit under it)');
    assert.equal(r.dropped, 0);
    assert.deepEqual(
      receiver.spans.map((s) => s.name).sort(),
      ['probe 0', 'probe 1', 'probe 2', 'probe 3', 'probe 4'],
      'every span reached the collector before the flush returned',
    );
    assert.equal(
      r.exporterHere,
      false,
      'the OTLP exporter and its serializer load on the export thread only',
    );
  } finally {
    await receiver.close();
  }
});

test('spans still queued do not keep a process from exiting', async () => {
  const receiver = await startOtlpReceiver();
  try {
    const r = await probe(receiver.url, 5, 'no-flush');
    assert.equal(r.flushed, false);
  } finally {
    await receiver.close();
  }
});
