/**
 * PostgreSQL's full-text primitive: a generated `tsvector` (text + filter values) under a GIN index,
 * searched newest first in three tiers so that neither a common nor a rare word costs more than a
 * bounded walk, whatever plan a prepared statement gets.
 */
import { type FullTextDialect, type SqlValue, searchWords } from '../store.ts';

/** The newest rows of a search's filters checked one by one, always (common words stop here). */
export const RECENT_WINDOW = 500;
/**
 * The next rows checked one by one, when the recent window held at least `dense` matches: a frequent
 * word is cheaper to find by walking the rows newest first than by fetching every match the GIN index
 * knows (~2 µs a match from shared buffers, ~15 µs from the OS cache, in no useful order). Walking the
 * whole table newest first reads consecutive rows (~0.4 µs a row), so from one match in 250 on it walks
 * up to 20 000 rows (≤ 8 ms); a scope's rows lie one to a page (~1.5 µs a row), so only from one match
 * in 50 and up to 5 000 rows — below that, a large scope's matches are fewer than its rows walked.
 */
export const WIDE_WINDOW = {
  table: { rows: 20_000, dense: 2 },
  filtered: { rows: 5_000, dense: 10 },
} as const;

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
  // (2) if (1) held enough matches (a frequent word), the next WIDE_WINDOW rows the same way;
  // (3) the GIN index for the older matches (rare words, few rows).
  // In (3) the exact filter and the id bound are kept off the btrees on purpose (`|| ''`, `+ 0`): a
  // generic plan would otherwise AND the GIN bitmap with a bitmap of the whole scope or of every older
  // id. `random() >= 0` (always true) is parallel-restricted: it keeps (3) in one process, where a
  // generic plan's guess of 5 000 rows would start parallel workers to fetch a few.
  matchQuery: ({ table, id, column, text, filters, limit }) => {
    const words = searchWords(text);
    if (words.length === 0) return null;
    const q = words.join(' | ');
    const cols = Object.keys(filters);
    const params: SqlValue[] = [];
    // Each helper pushes its parameters as its `?` is written, and the SQL is written in text order.
    const value = (c: string): string => {
      params.push(filters[c] as string);
      return '?';
    };
    const where = (...conds: string[]): string => (conds.length ? ` WHERE ${conds.join(' AND ')}` : '');
    // A window's size is a parameter, not a literal, on purpose: a generic plan then assumes a walk
    // stops early, and keeps the ordered index walk that streams (not a bitmap and a sort of it all).
    const limitParam = (n: number): string => {
      params.push(n);
      return '?';
    };
    const filter = (): string[] => cols.map((c) => `${c} = ${value(c)}`);
    const oldestRecent = '(SELECT min(id) FROM recent)';
    // The oldest of the newest `n` ids of the filters (below the recent window), from the btree alone.
    const oldestOf = (n: number, belowRecent: boolean): string =>
      `(SELECT min(b.id) FROM (SELECT ${id} AS id FROM ${table}${where(...filter(), ...(belowRecent ? [`${id} < ${oldestRecent}`] : []))} ORDER BY ${id} DESC LIMIT ${n}) b)`;
    const wide = cols.length === 0 ? WIDE_WINDOW.table : WIDE_WINDOW.filtered;
    // The oldest id of the second window. The table's ids are its rows, allocated in order (gaps only
    // make the window hold fewer rows), so it is a subtraction; a scope's are read from the btree.
    const floor = (): string =>
      cols.length === 0 ? `${oldestRecent} - ${wide.rows}` : oldestOf(wide.rows, true);
    // The query is parsed once (a CTE read through InitPlans): in a generic plan `to_tsquery($n)` is
    // not folded to a constant and would be parsed again for every row a walk checks.
    const tsQuery = '(SELECT q FROM terms)';
    const dense = `(SELECT count(*) FROM recent WHERE hit) >= ${wide.dense}`;
    params.push(q, q);
    const terms = `SELECT to_tsquery('simple', ?) AS q, ${[`to_tsquery('simple', ?)`, ...cols.map((c) => `phraseto_tsquery('simple', ${value(c)})`)].join(' && ')} AS qf`;
    // Each window is walked newest first and bounded below by its oldest id. The bound matters to a
    // generic plan, which guesses an average scope (table ÷ scopes) and may fetch a scope through a
    // bitmap and sort it: without the bound a large scope would be read whole (8 ms for 10 000 rows,
    // far more at 1M); with it, the window's rows.
    const recentFloor = (): string[] =>
      cols.length === 0 ? [] : [`${id} >= ${oldestOf(RECENT_WINDOW, false)}`];
    // The first window's rows are checked once, in a CTE read in the order it is written (newest first:
    // PostgreSQL reads a CTE's rows first in, first out, and fills it only as far as it is read), so
    // the first walk streams its matches and stops at the limit when the window's rows come from an
    // index walk; its match count and oldest row are read only when it came short.
    const recent = `SELECT w.id, w.tsv @@ ${tsQuery} AS hit FROM (SELECT ${id} AS id, ${column}_tsv AS tsv FROM ${table}${where(...filter(), ...recentFloor())} ORDER BY ${id} DESC LIMIT ${limitParam(RECENT_WINDOW)}) w`;
    const first = 'SELECT id FROM recent WHERE hit';
    // The second window: between its floor and the recent window. The gate has no column in it: a
    // one-time filter, so the walk reads nothing when it is false.
    const windowRows = `SELECT ${id} AS id, ${column}_tsv AS tsv FROM ${table}${where(...filter(), `${id} < ${oldestRecent}`, `${id} >= ${floor()}`, dense)} ORDER BY ${id} DESC LIMIT ${limitParam(wide.rows)}`;
    const second = `SELECT id FROM (${windowRows}) v WHERE v.tsv @@ ${tsQuery} ORDER BY id DESC`;
    const exact = cols.map((c) => ` AND ${c} || '' = ${value(c)}`).join('');
    // Where (3) starts: below the second window, or below the first when the second was not walked.
    // Only the branch taken is evaluated.
    const boundary = `CASE WHEN ${dense} THEN ${floor()} ELSE ${oldestRecent} END`;
    const third = `SELECT ${id} AS id FROM ${table} WHERE ${column}_tsv @@ (SELECT qf FROM terms)${exact} AND ${id} + 0 < (${boundary}) AND random() >= 0 ORDER BY ${id} DESC`;
    params.push(limit);
    return {
      sql: `WITH terms AS MATERIALIZED (${terms}), recent AS MATERIALIZED (${recent}) SELECT id FROM ((${first}) UNION ALL (${second}) UNION ALL (${third})) u LIMIT ?`,
      params,
    };
  },
};
