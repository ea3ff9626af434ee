import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadOnce } from './load-once.ts';

test('loadOnce loads on the first call, shares the load, and tries again after a failure', async () => {
  let calls = 0;
  let fail = true;
  const get = loadOnce(async () => {
    calls++;
    if (fail) throw new Error('not yet');
    return calls;
  });
  assert.equal(calls, 0, 'nothing loaded before the first call');
  await assert.rejects(get(), /not yet/);
  fail = false;
  const [a, b] = await Promise.all([get(), get()]);
  assert.deepEqual([a, b, calls], [2, 2, 2], 'one load after the failure, shared by both callers');
  assert.equal(await get(), 2);
});
