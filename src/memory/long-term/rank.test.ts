import assert from 'node:assert/strict';
import { test } from 'node:test';
import { bm25, tokens } from './rank.ts';

/** The tokenizer as the full-text indexes split text, for any text (no ASCII shortcut). */
const reference = (text: string): string[] =>
  text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .match(/[\p{L}\p{N}]+/gu) ?? [];

test('ASCII text is split exactly as the Unicode rules split it', () => {
  const every = Array.from({ length: 128 }, (_, i) => String.fromCharCode(i)).join('');
  assert.deepEqual(tokens(every), reference(every));
  assert.deepEqual(tokens(every), ['0123456789', 'abcdefghijklmnopqrstuvwxyz', 'abcdefghijklmnopqrstuvwxyz']);
  let seed = 7;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed;
  };
  for (let n = 0; n < 500; n++) {
    const text = Array.from({ length: next() % 40 }, () => String.fromCharCode(next() % 128)).join('');
    assert.deepEqual(tokens(text), reference(text), JSON.stringify(text));
  }
});

test('other text keeps the Unicode rules: diacritics removed, letters of any script', () => {
  for (const text of ['Café Ünïcode', 'ｆｕｌｌ　ｗｉｄｔｈ ①', 'Привет, мир', 'naïve_e\u0301tude 42']) {
    assert.deepEqual(tokens(text), reference(text), text);
  }
  assert.deepEqual(tokens('Café Ünïcode'), ['cafe', 'unicode']);
});

test('bm25 ranks a text with the word above one without it, and rarer words above common ones', () => {
  const [withWord, without] = bm25(['printer'], ['the printer is out of toner', 'the scanner works']);
  assert.ok((withWord as number) > 0);
  assert.equal(without, 0);
  const scores = bm25(['toner', 'the'], ['the toner', 'the drum', 'the tray']);
  assert.ok((scores[0] as number) > (scores[1] as number));
});
