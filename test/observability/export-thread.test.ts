// Spans are encoded and sent by a thread of their own, never by the thread that runs the runs; a
// flush holds the process until the thread has sent them, and spans still queued never keep a
// process from exiting; it runs at a lower priority than the runs' thread.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { traceSettings } from '../../src/observability/settings.ts';
import { startSpanExport } from '../../src/observability/span-export.ts';
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

/** The nice value of each of this process's threads (Linux: /proc/self/task/<tid>/stat, field 19). */
function threadNiceness(): number[] {
  return readdirSync('/proc/self/task').map((tid) => {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });
}

test("the export thread runs below the runs' thread's priority, and only it", {
  skip:
    process.platform !== 'linux'
      ? 'nice values are per thread on Linux only'
      : getPriority() === 19 && 'the tests run at the lowest priority already',
}, async () => {
  const receiver = await startOtlpReceiver();
  const before = threadNiceness();
  const spans = await startSpanExport(traceSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url })!);
  try {
    const after = threadNiceness();
    assert.deepEqual(
      after.filter((n) => n !== before[0]),
      [before[0]! + 10],
      'exactly one new thread, the export thread, is 10 nicer than the main thread',
    );
    assert.equal(threadNiceness()[0], before[0], 'the main thread keeps its priority');
  } finally {
    await spans.shutdown(1_000);
    await receiver.close();
  }
});
