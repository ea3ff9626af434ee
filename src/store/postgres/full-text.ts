/**
 * PostgreSQL's full-text primitive: a posting table of (word, filter values, id) rows, one per
 * distinct word of each row's text, kept in step with the table by statement triggers and read
 * newest first from btrees, so that finding the newest `limit` matches of a query costs `limit`
 * index entries per query word, however common the word and however large the table or the scope.
 */
import { type FullTextDialect, type SqlValue, searchWords } from '../store.ts';

/**
 * The words of a text, as a row's postings and a query's keys are both cut: the lexemes of the
 * `simple` text-search configuration (the parser's tokens, lowercased, no stop words, no stemming).
 */
const lexemes = (text: string): string => `unnest(to_tsvector('simple', ${text}))`;

/** The posting table of `table.column` (also the prefix of its indexes, functions and triggers). */
const postings = (table: string, column: string): string => `${table}_${column}_words`;
/** A deferred index's queue: the ids of rows written and not indexed yet. */
const pendingOf = (p: string): string => `${p}_pending`;

/**
 * The functions an index's triggers call (and a deferred index's catch-up), created or replaced.
 *
 * Deferred: an insert queues its rows' ids, and the queue is indexed in batches — by the store in the
 * background, on a connection of its own after its writes commit (`backgroundCatchUpSql`: the
 * postings are written beside the writers, not in their commits), taking the queued rows no other
 * batch holds (it never waits for a writer), and by a reader's catch-up, which waits for batches in
 * flight so that it sees every committed row. Ids need not commit in their order: a queued id stays
 * queued until a batch takes it, whatever ids committed around it. An update or delete takes its
 * rows out of the queue first (waiting for a batch that holds them to commit) and then rewrites
 * their postings, so a row's postings are always of its last text.
 */
function functionsDdl(
  table: string,
  id: string,
  column: string,
  filters: readonly string[],
  deferred: boolean,
): string[] {
  const p = postings(table, column);
  const q = pendingOf(p);
  const insertFrom = (rows: string): string => postingsOf(table, id, column, filters, rows);
  const deleteOf = (rows: string): string => `DELETE FROM ${p} WHERE ${id} IN (SELECT ${id} FROM ${rows})`;
  const unqueue = (rows: string): string => `DELETE FROM ${q} WHERE ${id} IN (SELECT ${id} FROM ${rows})`;
  const fn = (name: string, body: string[]): string =>
    `CREATE OR REPLACE FUNCTION ${p}_${name}() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN ${body.map((s) => `${s}; `).join('')}RETURN NULL; END $$`;
  if (!deferred)
    return [
      fn('insert', [insertFrom('new_rows')]),
      fn('delete', [deleteOf('old_rows')]),
      fn('update', [deleteOf('old_rows'), insertFrom('new_rows')]),
      fn('truncate', [`TRUNCATE ${p}`]),
    ];
  const takeQueued = (lock: string): string =>
    `WITH taken AS (DELETE FROM ${q} WHERE ${id} IN (SELECT ${id} FROM ${q} ORDER BY ${id} ${lock}) RETURNING ${id}) ${insertFrom(`(SELECT t.* FROM ${table} t JOIN taken ON t.${id} = taken.${id})`)}`;
  return [
    `CREATE OR REPLACE FUNCTION ${p}_catch_up(wait boolean) RETURNS void LANGUAGE plpgsql AS $$ BEGIN IF wait THEN ${takeQueued('FOR UPDATE')}; ELSE ${takeQueued('FOR UPDATE SKIP LOCKED')}; END IF; END $$`,
    fn('insert', [`INSERT INTO ${q} (${id}) SELECT ${id} FROM new_rows`]),
    fn('delete', [unqueue('old_rows'), deleteOf('old_rows')]),
    fn('update', [unqueue('old_rows'), deleteOf('old_rows'), insertFrom('new_rows')]),
    fn('truncate', [`TRUNCATE ${p}`, `TRUNCATE ${q}`]),
  ];
}

/** `INSERT` of the postings of the rows `rows` (a table, or a statement's transition table) of `table`. */
function postingsOf(
  table: string,
  id: string,
  column: string,
  filters: readonly string[],
  rows: string,
): string {
  const cols = ['word', ...filters, id].join(', ');
  return `INSERT INTO ${postings(table, column)} (${cols}) SELECT w.lexeme, ${[...filters, id].map((c) => `r.${c}`).join(', ')} FROM ${rows} r CROSS JOIN LATERAL ${lexemes(`r.${column}`)} w`;
}

/** The names of this schema's deferred indexes' catch-up functions (`<posting table>_catch_up`). */
export const DEFERRED_INDEXES_SQL = `SELECT p.proname AS name FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
  WHERE n.nspname = current_schema() AND p.proname LIKE '%\\_words\\_catch\\_up'`;

/** A batch of a deferred index's queue (`name` from DEFERRED_INDEXES_SQL), taking only rows no other batch holds. */
export const backgroundCatchUpSql = (name: string): string => `SELECT ${name}(false)`;

function indexDdl(
  table: string,
  id: string,
  column: string,
  filters: readonly string[],
  deferred = false,
): string[] {
  const p = postings(table, column);
  const q = pendingOf(p);
  const triggers = deferred
    ? [`CREATE TABLE ${q} (${id} BIGINT PRIMARY KEY)`, ...functionsDdl(table, id, column, filters, true)]
    : functionsDdl(table, id, column, filters, false);
  return [
    `CREATE TABLE ${p} (word TEXT NOT NULL, ${filters.map((f) => `${f} TEXT, `).join('')}${id} BIGINT NOT NULL)`,
    // One trigger per statement (not per row) with the statement's rows as a transition table: a
    // bulk insert writes its postings (or queues its ids) in one INSERT … SELECT. An update rewrites
    // the postings of the rows it touched (their text or filters may have changed); a delete removes
    // theirs.
    ...triggers,
    `CREATE TRIGGER ${p}_insert AFTER INSERT ON ${table} REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ${p}_insert()`,
    `CREATE TRIGGER ${p}_delete AFTER DELETE ON ${table} REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION ${p}_delete()`,
    `CREATE TRIGGER ${p}_update AFTER UPDATE ON ${table} REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION ${p}_update()`,
    `CREATE TRIGGER ${p}_truncate AFTER TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION ${p}_truncate()`,
    // The rows already there, in one statement; the indexes are built after it (a sort, not 12
    // insertions per row), and the planner gets the table's statistics at once.
    postingsOf(table, id, column, filters, table),
    // Newest first by word (a search of every row), by filters and word (a search of a scope), and
    // by id (a row's postings, for its update or delete).
    `CREATE INDEX ${p}_word ON ${p} (word, ${id})`,
    ...(filters.length > 0
      ? [`CREATE INDEX ${p}_filters ON ${p} (${[...filters, 'word', id].join(', ')})`]
      : []),
    `CREATE INDEX ${p}_id ON ${p} (${id})`,
    `ANALYZE ${p}`,
  ];
}

function dropIndexDdl(table: string, column: string): string[] {
  const p = postings(table, column);
  return [
    // The layout before the posting table: a generated `tsvector` column under a GIN index (dropped
    // with it). Dropping a column rewrites nothing.
    `ALTER TABLE ${table} DROP COLUMN IF EXISTS ${column}_tsv`,
    ...['insert', 'delete', 'update', 'truncate'].map((f) => `DROP FUNCTION IF EXISTS ${p}_${f}() CASCADE`),
    `DROP FUNCTION IF EXISTS ${p}_catch_up(boolean)`,
    `DROP TABLE IF EXISTS ${pendingOf(p)}`,
    `DROP TABLE IF EXISTS ${p}`,
  ];
}

export const postgresFullText: FullTextDialect = {
  indexDdl: (table, id, column, filters, options = {}) =>
    indexDdl(table, id, column, filters, options.deferred === true),
  // A reader's catch-up waits for batches in flight: then every committed row is indexed.
  catchUpSql: (table, _id, column) => [`SELECT ${postings(table, column)}_catch_up(true)`],
  defersIndexing: true,
  dropIndexDdl,
  // A deferred index's insert trigger took a batch of the queue at every 64th id, in the writer's
  // commit, until the store took them in the background: its functions replaced, its postings kept.
  replaceIndexFunctionsDdl: (table, id, column, filters, options = {}) =>
    functionsDdl(table, id, column, filters, options.deferred === true),
  // The index was a `tsvector` column under GIN until the posting table replaced it, and a deferred
  // index was kept current until it had a queue: rebuilt.
  upgradeIndexDdl: (table, id, column, filters, options = {}) => [
    ...dropIndexDdl(table, column),
    ...indexDdl(table, id, column, filters, options.deferred === true),
  ],
  // The newest `limit` matches of w1 | w2 | … are among the union of each word's newest `limit`
  // postings (a match is a posting of one of its words, and fewer than `limit` matches are newer
  // than it, so fewer than `limit` of that word's postings are). So each query word reads at most
  // `limit` entries of a btree, newest first (an index-only scan when the visibility map is set), and
  // the union's newest `limit` ids are the answer. The query's words are cut by the same function as
  // the rows' (`lexemes`). The posting table holds the filter values exactly: no recheck on the rows.
  matchQuery: ({ table, id, column, text, filters, limit, before, columns }) => {
    const words = searchWords(text);
    if (words.length === 0) return null;
    const cols = Object.keys(filters);
    const below = before === undefined ? [] : [before];
    const params: SqlValue[] = [
      words.join(' '),
      ...cols.map((c) => filters[c] as string),
      ...below,
      limit,
      limit,
    ];
    const filter =
      cols.map((c) => ` AND p.${c} = ?`).join('') + (before === undefined ? '' : ` AND p.${id} < ?`);
    const ids = `SELECT n.id FROM (SELECT lexeme AS word FROM ${lexemes('?')}) q CROSS JOIN LATERAL (SELECT p.${id} AS id FROM ${postings(table, column)} p WHERE p.word = q.word${filter} ORDER BY p.${id} DESC LIMIT ?) n GROUP BY n.id ORDER BY n.id DESC LIMIT ?`;
    // The postings hold the ids and filters only: the rows' columns are read by their primary key.
    const sql = columns
      ? `SELECT ${columns.map((c) => `t.${c}`).join(', ')} FROM (${ids}) m JOIN ${table} t ON t.${id} = m.id`
      : ids;
    return { sql, params };
  },
};
