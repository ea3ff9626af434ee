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

/** BM25 of each text for the query words (same order as `texts`); 0 for a text with none of them. */
export function bm25(words: readonly string[], texts: readonly string[]): number[] {
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
