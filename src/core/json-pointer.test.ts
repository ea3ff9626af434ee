import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isNoemaError } from './errors.ts';
import {
  formatPointer,
  parsePointer,
  readPointer,
  unsafePointerReason,
  writePointer,
} from './json-pointer.ts';

test('pointers unescape ~1 to / and ~0 to ~, in that order (RFC 6901)', () => {
  assert.deepEqual(parsePointer('/a~1b/m~0n/~01'), ['a/b', 'm~n', '~1']);
  assert.deepEqual(parsePointer(''), []);
  assert.equal(parsePointer('a/b'), null);
  assert.equal(formatPointer(['a/b', 'm~n']), '/a~1b/m~0n');
});

test('reads follow own properties and RFC array indexes only', () => {
  const doc = { a: [10, { b: 'x' }], 'k/': 1 };
  assert.deepEqual(readPointer(doc, '/a/1/b'), { ok: true, value: 'x' });
  assert.deepEqual(readPointer(doc, '/k~1'), { ok: true, value: 1 });
  for (const p of ['/a/01', '/a/length', '/a/2', '/constructor', '/__proto__', '/a/1/toString', 'a'])
    assert.deepEqual(readPointer(doc, p), { ok: false }, p);
});

test('a write through __proto__, constructor or prototype is refused and pollutes nothing', () => {
  for (const p of ['/ambient/__proto__/polluted', '/constructor/prototype/polluted', '/__proto__']) {
    const target: Record<string, unknown> = {};
    assert.throws(
      () => writePointer(target, p, 'yes'),
      (e) => isNoemaError(e) && e.code === 'INVALID_INPUT',
    );
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.deepEqual(target, {});
  }
  assert.match(unsafePointerReason('/a/prototype') ?? '', /prototype/);
  assert.equal(unsafePointerReason('/a/b'), null);
});

test('writes create objects on the way and replace non-objects', () => {
  const target: Record<string, unknown> = { ambient: { x: 1, y: [1] } };
  writePointer(target, '/ambient/y/z', 2);
  writePointer(target, '/ambient/n~1m', 3);
  assert.deepEqual(target, { ambient: { x: 1, y: { z: 2 }, 'n/m': 3 } });
});
