import assert from 'node:assert/strict';
import { test } from 'node:test';
import { balancedOrders } from '../../bench/lib/paired.ts';

test('balanced orders: every row holds each setting once, and each setting follows every other equally often', () => {
  for (let n = 2; n <= 7; n++) {
    const rows = balancedOrders(n);
    assert.equal(rows.length, n % 2 === 0 ? n : 2 * n, `rows for ${n}`);
    const follows = new Map<string, number>();
    for (const row of rows) {
      assert.deepEqual(
        [...row].sort((a, b) => a - b),
        Array.from({ length: n }, (_, i) => i),
        `${n}: ${row}`,
      );
      for (let k = 1; k < row.length; k++) {
        const key = `${row[k - 1]}→${row[k]}`;
        follows.set(key, (follows.get(key) ?? 0) + 1);
      }
    }
    // Every ordered pair of distinct settings, the same number of times.
    assert.equal(follows.size, n * (n - 1), `${n}: ${[...follows.keys()]}`);
    assert.equal(new Set(follows.values()).size, 1, `${n}: ${JSON.stringify([...follows])}`);
  }
});
