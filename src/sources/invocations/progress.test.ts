/**
 * The progress writer: a long stream's batches at the interval, and its final batch (the answer
 * complete) at once, so a crash before the call finishes leaves the whole answer on record; a short
 * call still writes nothing before its finish.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachStore } from '../../testing/each-store.ts';
import { createRedactor } from '../redact.ts';
import type { SourcePlan } from '../source.ts';
import { PROGRESS_INTERVAL_MS, progressWriter } from './progress.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A plan whose progress hook counts its writes (each one a real transaction on the store). */
function countingPlan(): { plan: SourcePlan; writes: () => number } {
  let writes = 0;
  const plan = {
    progress: async (q: { get: (sql: string) => Promise<unknown> }) => {
      await q.get('SELECT 1 AS one');
      writes++;
    },
  } as unknown as SourcePlan;
  return { plan, writes: () => writes };
}

describeEachStore('progress writer', (factory) => {
  test('a long stream writes its final batch at once, not at the next interval', async () => {
    await factory.withStore(async ({ store }) => {
      const { plan, writes } = countingPlan();
      const w = progressWriter(store, plan, createRedactor([]), 'inv-1');
      w.progressed();
      await sleep(PROGRESS_INTERVAL_MS + 80);
      assert.equal(writes(), 1, 'a batch at the interval');
      w.progressed(); // more chunks: the next batch waits for the interval
      w.progressed(true); // the answer is complete: written now
      await sleep(PROGRESS_INTERVAL_MS / 2);
      assert.equal(writes(), 2, 'the final batch did not wait for the interval');
      w.progressed(true);
      await w.stop();
      assert.equal(writes(), 2, 'one final batch');
    });
  });

  test('a short call (no batch yet) writes nothing extra when its answer completes', async () => {
    await factory.withStore(async ({ store }) => {
      const { plan, writes } = countingPlan();
      const w = progressWriter(store, plan, createRedactor([]), 'inv-2');
      w.progressed();
      w.progressed(true);
      await sleep(PROGRESS_INTERVAL_MS / 4);
      await w.stop();
      assert.equal(writes(), 0);
    });
  });
});
