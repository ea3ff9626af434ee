/**
 * The answer buffer pool: memory comes back only as what it lent, once, and is lent again; bytes it
 * did not lend are never taken in (no store: nothing here is stored).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { giveBack, poolStats, takeBytes } from './byte-pool.ts';

test('memory given back is lent again, and a view of it gives it back as well as the whole', () => {
  const first = takeBytes(100_000);
  assert.equal(first.length, 100_000);
  const before = poolStats();
  // A view (what a splice hands a transport: the written part) names the same memory.
  giveBack(first.subarray(0, 10));
  assert.deepEqual(poolStats(), { ...before, free: before.free + 1, lent: before.lent - 1 });
  const again = takeBytes(90_000);
  assert.equal(again.buffer, first.buffer, 'the memory given back is lent again');
  assert.equal(again.length, 90_000);
  giveBack(again);
});

test('memory given back twice, or never lent, is left alone', () => {
  const lent = takeBytes(70_000);
  giveBack(lent);
  const after = poolStats();
  giveBack(lent);
  // A buffer of its own, and one of the small buffers Node slices from shared memory.
  giveBack(Buffer.alloc(100_000));
  giveBack(Buffer.from('a few bytes'));
  assert.deepEqual(poolStats(), after);
  // Taken again twice: one of them is the memory given back, the other new (not the same twice).
  const a = takeBytes(70_000);
  const b = takeBytes(70_000);
  assert.notEqual(a.buffer, b.buffer);
  giveBack(a);
  giveBack(b);
});

test('an answer larger than the pool keeps gets memory of its own, never pooled', () => {
  const before = poolStats();
  const big = takeBytes((16 << 20) + 1);
  giveBack(big);
  assert.deepEqual(poolStats(), before);
});
