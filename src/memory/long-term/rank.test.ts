import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
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

/** bm25 as it was computed before it counted query words in place: every text split into its words. */
function referenceBm25(words: readonly string[], texts: readonly string[]): number[] {
  const K1 = 1.2;
  const B = 0.75;
  const query = [...new Set(words.flatMap((w) => tokens(w)))];
  const docs = texts.map((t) => {
    const counts = new Map<string, number>();
    const all = tokens(t);
    for (const w of all) if (query.includes(w)) counts.set(w, (counts.get(w) ?? 0) + 1);
    return { length: all.length, counts };
  });
  const n = docs.length;
  const avgLength = docs.reduce((a, d) => a + d.length, 0) / (n || 1) || 1;
  const idf = new Map(
    query.map((w) => {
      const df = docs.filter((d) => d.counts.has(w)).length;
      return [w, Math.log(1 + (n - df + 0.5) / (df + 0.5))];
    }),
  );
  return docs.map((d) => {
    let score = 0;
    for (const [w, tf] of d.counts)
      score += ((idf.get(w) ?? 0) * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * d.length) / avgLength));
    return score;
  });
}

test('bm25 scores every generated candidate set exactly as splitting each text into words did', () => {
  const vocabulary = [
    'printer',
    'Toner',
    'the',
    'a1',
    'A1',
    'out',
    'of',
    'café',
    'Cafe',
    'naïve',
    'мир',
    'x',
    '42',
  ];
  const separators = [' ', ', ', '\n', '-', '_', '\t', '. ', '\u0000', '\u00a0', '→'];
  const word = fc.constantFrom(...vocabulary);
  const text = fc
    .array(fc.tuple(word, fc.constantFrom(...separators)), { maxLength: 12 })
    .map((parts) => parts.map(([w, s]) => w + s).join(''));
  fc.assert(
    fc.property(
      fc.array(fc.oneof(word, text), { maxLength: 3 }),
      fc.array(text, { maxLength: 12 }),
      (q, texts) => {
        assert.deepEqual(bm25(q, texts), referenceBm25(q, texts));
      },
    ),
    { numRuns: 2000 },
  );
});
