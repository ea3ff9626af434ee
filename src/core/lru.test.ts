import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LruMap, lruPerHandle } from './lru.ts';

test('an LruMap never holds more than max entries and evicts the least recently used', () => {
  const evicted: string[] = [];
  const m = new LruMap<string, number>(3, (k) => evicted.push(k));
  for (const k of ['a', 'b', 'c']) m.set(k, k.charCodeAt(0));
  assert.equal(m.get('a'), 97, 'reading a makes it the youngest');
  m.set('d', 100);
  assert.deepEqual(evicted, ['b']);
  for (let i = 0; i < 1000; i++) m.set(`k${i}`, i);
  assert.equal(m.size, 3);
  assert.equal(evicted.length, 1001);
  assert.equal(m.get('k999'), 999);
  assert.equal(m.get('a'), undefined);
});

test('an LruMap refuses a non-positive bound', () => {
  assert.throws(() => new LruMap(0), RangeError);
  assert.throws(() => new LruMap(1.5), RangeError);
});

test('lruPerHandle: one map per handle, the same one each time', () => {
  const of = lruPerHandle<string, number>(2);
  const a = {};
  const b = {};
  of(a).set('k', 1);
  assert.equal(of(a).get('k'), 1);
  assert.equal(of(b).get('k'), undefined);
  assert.equal(of(a).max, 2);
});
