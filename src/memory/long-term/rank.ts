/**
 * Relevance of full-text candidates, computed here the same way on every store: BM25 over the
 * candidate set (the newest matches of a query), with each word's rarity taken among those
 * candidates. Cheap (no walk of a word's whole posting list, which a common word makes long) and
 * identical on SQLite and PostgreSQL.
 */
const K1 = 1.2;
const B = 0.75;

/**
 * Text of printable ASCII and common whitespace only: it has no diacritics, and its letters and
 * digits are [A-Za-z0-9]. (Other text, control characters included, takes the Unicode path.)
 */
const ASCII = /^[\t\n\r -~]*$/;

/** Lowercased letter/digit runs with diacritics removed, as the full-text indexes split text. */
export function tokens(text: string): string[] {
  // The same runs as below for ASCII text, without Unicode normalization and property classes
  // (several times faster: a retrieval tokenizes each of its up to 100 candidates).
  if (ASCII.test(text)) return text.toLowerCase().match(/[a-z0-9]+/g) ?? [];
  return (
    text
      .normalize('NFKD')
      .replace(/\p{M}/gu, '')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

/**
 * The words of a text that are query words, counted, without making the text's words: for each
 * candidate, how often each query word occurs (`tf`, by the word's index in the query), in which
 * order the query words first occur (`seen`), and how many words it has (`length`).
 */
class Counts {
  readonly tf: Int32Array;
  readonly seen: Int32Array;
  readonly seenCount: Int32Array;
  readonly length: Float64Array;
  readonly #q: number;

  constructor(docs: number, queryWords: number) {
    this.#q = queryWords;
    this.tf = new Int32Array(docs * queryWords);
    this.seen = new Int32Array(docs * queryWords);
    this.seenCount = new Int32Array(docs);
    this.length = new Float64Array(docs);
  }

  add(doc: number, word: number): void {
    const at = doc * this.#q + word;
    const before = this.tf[at]!;
    this.tf[at] = before + 1;
    if (before > 0) return;
    const seen = this.seenCount[doc]!;
    this.seen[doc * this.#q + seen] = word;
    this.seenCount[doc] = seen + 1;
  }
}

const isDigit = (c: number) => c >= 48 && c <= 57;
const isUpper = (c: number) => c >= 65 && c <= 90;
const isLower = (c: number) => c >= 97 && c <= 122;
/** Printable ASCII and tab, newline, carriage return: the characters `ASCII` accepts. */
const isAsciiText = (c: number) => (c >= 32 && c <= 126) || c === 9 || c === 10 || c === 13;

/**
 * Counts `text`'s query words as `tokens` splits an ASCII text ([A-Za-z0-9] runs, lowercased), by
 * comparing each run with the query words of its length in place; false, counting nothing, when the
 * text is not ASCII (`ASCII`), which `tokens` splits by the Unicode rules instead.
 */
function countAscii(text: string, query: readonly string[], counts: Counts, doc: number): boolean {
  for (let i = 0; i < text.length; i++) if (!isAsciiText(text.charCodeAt(i))) return false;
  let words = 0;
  let start = -1;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 32;
    if (isDigit(c) || isUpper(c) || isLower(c)) {
      if (start < 0) start = i;
      continue;
    }
    if (start < 0) continue;
    words++;
    const n = i - start;
    for (let w = 0; w < query.length; w++) {
      const q = query[w]!;
      if (q.length !== n) continue;
      let same = true;
      for (let k = 0; k < n && same; k++) {
        const t = text.charCodeAt(start + k);
        same = (isUpper(t) ? t + 32 : t) === q.charCodeAt(k);
      }
      if (same) counts.add(doc, w);
    }
    start = -1;
  }
  counts.length[doc] = words;
  return true;
}

/** BM25 of each text for the query words (same order as `texts`); 0 for a text with none of them. */
export function bm25(words: readonly string[], texts: readonly string[]): number[] {
  const query = [...new Set(words.flatMap((w) => tokens(w)))];
  const q = query.length;
  const n = texts.length;
  const counts = new Counts(n, q);
  let index: Map<string, number> | null = null;
  for (let d = 0; d < n; d++) {
    const text = texts[d]!;
    if (countAscii(text, query, counts, d)) continue;
    index ??= new Map(query.map((w, i) => [w, i]));
    const all = tokens(text);
    for (const w of all) {
      const i = index.get(w);
      if (i !== undefined) counts.add(d, i);
    }
    counts.length[d] = all.length;
  }
  let total = 0;
  for (let d = 0; d < n; d++) total += counts.length[d]!;
  const avgLength = total / (n || 1) || 1;
  const idf = new Float64Array(q);
  for (let w = 0; w < q; w++) {
    let df = 0;
    for (let d = 0; d < n; d++) if (counts.tf[d * q + w]! > 0) df++;
    idf[w] = Math.log(1 + (n - df + 0.5) / (df + 0.5));
  }
  const scores = new Array<number>(n);
  for (let d = 0; d < n; d++) {
    // Summed in the order the text first uses each word, as a map of its counts would iterate.
    let score = 0;
    const length = counts.length[d]!;
    for (let s = 0; s < counts.seenCount[d]!; s++) {
      const w = counts.seen[d * q + s]!;
      const tf = counts.tf[d * q + w]!;
      score += (idf[w]! * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * length) / avgLength));
    }
    scores[d] = score;
  }
  return scores;
}
