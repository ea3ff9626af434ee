/** Rewrites portable `?` placeholders to PostgreSQL's `$n`, skipping quoted text. Cached per SQL string. */

const cache = new Map<string, string>();

export function toPostgresPlaceholders(sql: string): string {
  const hit = cache.get(sql);
  if (hit !== undefined) return hit;
  let out = '';
  let n = 0;
  let quote: string | null = null;
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i]!;
    if (quote) {
      if (c === quote) quote = null;
      out += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      out += c;
    } else if (c === '?') {
      out += `$${++n}`;
    } else {
      out += c;
    }
  }
  if (cache.size < 10_000) cache.set(sql, out);
  return out;
}
