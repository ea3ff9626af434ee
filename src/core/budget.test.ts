import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clampString, DEFAULT_MAX_CHARS, fitToBudget, jsonSize } from './budget.ts';
import { ErrorCode, NoemaError } from './errors.ts';

const build = (items: string[], truncated: boolean) => ({ items, truncated });
const items = Array.from({ length: 50 }, (_, i) => `item-${String(i).padStart(3, '0')}`);

describe('fitToBudget', () => {
  it('returns everything untruncated when the payload fits', () => {
    const r = fitToBudget({ build, items, maxChars: DEFAULT_MAX_CHARS, dropFrom: 'start' });
    assert.deepEqual(r, { value: { items, truncated: false }, truncated: false, kept: 50, dropped: 0 });
  });

  it('drops the oldest items from the start and reports truncated', () => {
    const maxChars = 200;
    const r = fitToBudget({ build, items, maxChars, dropFrom: 'start' });
    const value = r.value as { items: string[]; truncated: boolean };
    assert.equal(r.truncated, true);
    assert.equal(value.truncated, true);
    assert.equal(r.kept + r.dropped, 50);
    assert.deepEqual(value.items, items.slice(50 - r.kept));
    assert.ok(jsonSize(r.value) <= maxChars);
    // Maximal: one more item would not fit.
    assert.ok(jsonSize(build(items.slice(50 - r.kept - 1), true)) > maxChars);
  });

  it('drops the oldest items from the end when the caller says they are there', () => {
    const r = fitToBudget({ build, items, maxChars: 200, dropFrom: 'end' });
    const value = r.value as { items: string[] };
    assert.ok(r.kept > 0);
    assert.deepEqual(value.items, items.slice(0, r.kept));
  });

  it('calls build a logarithmic number of times', () => {
    let calls = 0;
    const many = Array.from({ length: 10000 }, (_, i) => i);
    fitToBudget({
      build: (kept: number[], truncated: boolean) => {
        calls += 1;
        return { kept, truncated };
      },
      items: many,
      maxChars: 1000,
      dropFrom: 'start',
    });
    assert.ok(calls <= 20, `build was called ${calls} times`);
  });

  it('throws BUDGET_TOO_SMALL naming the minimum when even no items fit', () => {
    const min = jsonSize(build([], true));
    try {
      fitToBudget({ build, items, maxChars: min - 1, dropFrom: 'start' });
      assert.fail('expected a throw');
    } catch (e) {
      assert.ok(e instanceof NoemaError);
      assert.equal(e.code, ErrorCode.BUDGET_TOO_SMALL);
      assert.deepEqual(e.details, { max_chars: min - 1, min_chars: min });
      assert.match(e.hint ?? '', new RegExp(String(min)));
    }
  });

  it('keeps zero items when only the empty payload fits', () => {
    const min = jsonSize(build([], true));
    const r = fitToBudget({ build, items, maxChars: min, dropFrom: 'start' });
    assert.deepEqual(r, { value: { items: [], truncated: true }, truncated: true, kept: 0, dropped: 50 });
  });
});

describe('jsonSize', () => {
  it('measures JSON.stringify length', () => {
    assert.equal(jsonSize({ a: 'é' }), '{"a":"é"}'.length);
    assert.equal(jsonSize(undefined), 0);
  });
});

describe('clampString', () => {
  it('leaves short strings alone', () => {
    assert.deepEqual(clampString('abc', 3), { text: 'abc', truncated: false });
  });

  it('cuts long strings and reports truncation', () => {
    assert.deepEqual(clampString('abcdef', 4), { text: 'abcd', truncated: true });
  });

  it('never splits a surrogate pair', () => {
    assert.deepEqual(clampString('ab😀cd', 3), { text: 'ab', truncated: true });
    assert.deepEqual(clampString('ab😀cd', 4), { text: 'ab😀', truncated: true });
  });
});
