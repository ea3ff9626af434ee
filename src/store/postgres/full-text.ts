/**
 * PostgreSQL's full-text primitive: a generated `tsvector` (text + filter values) under a GIN index,
 * searched newest first in three tiers so that neither a common nor a rare word costs more than a
 * bounded walk, whatever plan a prepared statement gets.
 */
import { type FullTextDialect, type SqlValue, searchWords } from '../store.ts';

/** The newest rows of a search's filters checked one by one, always (common words stop here). */
export const RECENT_WINDOW = 500;
/**
 * The next rows checked one by one, when the recent window held at least DENSE_MATCHES matches: a
 * word in one row of 250 or more is cheaper to find by walking the rows newest first (~0.5 µs a row,
 * sequential pages) than by fetching every match the GIN index knows (~2–15 µs a match, random pages).
 */
export const WIDE_WINDOW = 20_000;
export const DENSE_MATCHES = 2;

export const postgresFullText: FullTextDialect = {
  // The filter columns' values are indexed as words with the text, so the GIN index alone narrows a
  // search to one scope (no BitmapAnd with a btree over a large scope).
  indexDdl: (table, _id, column, filters) => [
    `ALTER TABLE ${table} ADD COLUMN ${column}_tsv tsvector GENERATED ALWAYS AS (${[column, ...filters].map((c) => `to_tsvector('simple', ${c})`).join(' || ')}) STORED`,
    `CREATE INDEX ${table}_${column}_tsv ON ${table} USING GIN (${column}_tsv)`,
  ],
  dropIndexDdl: (table, column) => [`ALTER TABLE ${table} DROP COLUMN IF EXISTS ${column}_tsv`],
  // Three walks, each only when the ones before it found fewer than `limit` matches, newest first:
  // (1) the newest RECENT_WINDOW rows of the filters (btree, newest first), the text a filter on each;
  // (2) if (1) held at least DENSE_MATCHES matches (a frequent word), the next WIDE_WINDOW rows the
  //     same way; (3) the GIN index for the older matches (rare words, few rows).
  // In (3) the exact filter and the id bound are kept off the btrees on purpose (`|| ''`, `+ 0`): a
  // generic plan would otherwise AND the GIN bitmap with a bitmap of the whole scope or of every older
  // id. `random() >= 0` (always true) is parallel-restricted: it keeps (3) in one process, where a
  // generic plan's guess of 5 000 rows would start parallel workers to fetch a few. The gate of (2)
  // has no column in it, so it is a one-time filter: when false, (2) reads nothing.
  matchQuery: ({ table, id, column, text, filters, limit }) => {
    const words = searchWords(text);
    if (words.length === 0) return null;
    const q = words.join(' | ');
    const cols = Object.keys(filters);
    const params: SqlValue[] = [];
    // Each helper pushes its parameters as its `?` is written, and the SQL is written in text order.
    const filter = (): string[] =>
      cols.map((c) => {
        params.push(filters[c] as string);
        return `${c} = ?`;
      });
    const where = (...conds: string[]): string => (conds.length ? ` WHERE ${conds.join(' AND ')}` : '');
    // The query is parsed once (a CTE read through InitPlans): in a generic plan `to_tsquery($n)` is
    // not folded to a constant and would be parsed again for every row a walk checks.
    const tsQuery = '(SELECT q FROM terms)';
    const newest = (n: number, extra: string, below: boolean): string =>
      `SELECT ${id} AS id${extra} FROM ${table}${where(...filter(), ...(below ? [`${id} < (SELECT min(id) FROM recent)`] : []))} ORDER BY ${id} DESC LIMIT ${n}`;
    const dense = (): string => `(SELECT count(*) FROM recent WHERE tsv @@ ${tsQuery}) >= ${DENSE_MATCHES}`;
    const tsv = `, ${column}_tsv AS tsv`;
    params.push(q, q);
    const terms = `SELECT to_tsquery('simple', ?) AS q, ${[`to_tsquery('simple', ?)`, ...filter().map(() => `phraseto_tsquery('simple', ?)`)].join(' && ')} AS qf`;
    const recent = newest(RECENT_WINDOW, tsv, false);
    const first = `SELECT id FROM recent WHERE tsv @@ ${tsQuery} ORDER BY id DESC`;
    // The gate has no column in it: a one-time filter, so (2) reads nothing when it is false.
    const wide = `SELECT ${id} AS id${tsv} FROM ${table}${where(...filter(), `${id} < (SELECT min(id) FROM recent)`, dense())} ORDER BY ${id} DESC LIMIT ${WIDE_WINDOW}`;
    const second = `SELECT id FROM (${wide}) v WHERE v.tsv @@ ${tsQuery} ORDER BY id DESC`;
    const exact = (): string =>
      cols
        .map((c) => {
          params.push(filters[c] as string);
          return ` AND ${c} || '' = ?`;
        })
        .join('');
    // Where (3) starts: below the rows (2) walked, or below (1) when (2) did not run. Only the branch
    // taken is evaluated; the walked ids come from the btree alone (index-only once vacuumed).
    const boundary = (): string =>
      `CASE WHEN ${dense()} THEN (SELECT min(r.id) FROM (${newest(WIDE_WINDOW, '', true)}) r) ELSE (SELECT min(id) FROM recent) END`;
    const third = `SELECT ${id} AS id FROM ${table} WHERE ${column}_tsv @@ (SELECT qf FROM terms)${exact()} AND ${id} + 0 < (${boundary()}) AND random() >= 0 ORDER BY ${id} DESC`;
    params.push(limit);
    return {
      sql: `WITH terms AS MATERIALIZED (${terms}), recent AS MATERIALIZED (${recent}) SELECT id FROM ((${first}) UNION ALL (${second}) UNION ALL (${third})) u LIMIT ?`,
      params,
    };
  },
};
