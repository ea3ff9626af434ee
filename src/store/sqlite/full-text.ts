/**
 * SQLite's full-text primitive: a contentless FTS5 table keyed by the negated id (FTS5 walks a
 * doclist fastest in ascending rowid order, so ascending here is newest first), kept by triggers.
 * A deferred index is filled in batches: FTS5 writes a new segment at every COMMIT that touched
 * it (about 100 µs, several pages), which a writer of single rows would pay on every commit.
 */
import { type FullTextDialect, type SqlValue, searchWords } from '../store.ts';

/** A deferred index takes the rows written since its last batch at every id divisible by this. */
const DEFERRED_INDEX_BATCH = 64;

const fts = (table: string) => `${table}_fts`;
/** A deferred index's one-row table: the highest id it holds (rows above it are not indexed yet). */
const upto = (table: string) => `${table}_fts_upto`;

const catchUp = (table: string, id: string): string =>
  `UPDATE ${upto(table)} SET upto = (SELECT max(${id}) FROM ${table}) WHERE upto < (SELECT max(${id}) FROM ${table})`;

export const sqliteFullText: FullTextDialect = {
  indexDdl: (table, id, column, filters, options = {}) => {
    const cols = [column, ...filters];
    const list = cols.join(', ');
    const newValues = cols.map((c) => `new.${c}`).join(', ');
    const create = [
      `CREATE VIRTUAL TABLE ${fts(table)} USING fts5(${list}, content='', contentless_delete=1, tokenize='unicode61')`,
      `INSERT INTO ${fts(table)}(rowid, ${list}) SELECT -${id}, ${list} FROM ${table}`,
    ];
    if (!options.deferred) {
      return [
        ...create,
        `CREATE TRIGGER ${fts(table)}_ai AFTER INSERT ON ${table} BEGIN
           INSERT INTO ${fts(table)}(rowid, ${list}) VALUES (-new.${id}, ${newValues}); END`,
        `CREATE TRIGGER ${fts(table)}_ad AFTER DELETE ON ${table} BEGIN
           DELETE FROM ${fts(table)} WHERE rowid = -old.${id}; END`,
        `CREATE TRIGGER ${fts(table)}_au AFTER UPDATE ON ${table} BEGIN
           DELETE FROM ${fts(table)} WHERE rowid = -old.${id};
           INSERT INTO ${fts(table)}(rowid, ${list}) VALUES (-new.${id}, ${newValues}); END`,
      ];
    }
    // Moving `upto` indexes the rows between its old and new value; a row above it is left to that,
    // so deletes and updates touch the index only for rows it already holds.
    const indexed = `(SELECT upto FROM ${upto(table)})`;
    return [
      ...create,
      `CREATE TABLE ${upto(table)} (upto INTEGER NOT NULL)`,
      `INSERT INTO ${upto(table)} (upto) SELECT COALESCE(max(${id}), 0) FROM ${table}`,
      `CREATE TRIGGER ${fts(table)}_catch_up AFTER UPDATE OF upto ON ${upto(table)} WHEN new.upto > old.upto BEGIN
         INSERT INTO ${fts(table)}(rowid, ${list}) SELECT -${id}, ${list} FROM ${table}
           WHERE ${id} > old.upto AND ${id} <= new.upto; END`,
      `CREATE TRIGGER ${fts(table)}_ai AFTER INSERT ON ${table} WHEN new.${id} % ${DEFERRED_INDEX_BATCH} = 0 BEGIN
         UPDATE ${upto(table)} SET upto = new.${id} WHERE upto < new.${id}; END`,
      `CREATE TRIGGER ${fts(table)}_ad AFTER DELETE ON ${table} WHEN old.${id} <= ${indexed} BEGIN
         DELETE FROM ${fts(table)} WHERE rowid = -old.${id}; END`,
      `CREATE TRIGGER ${fts(table)}_au AFTER UPDATE ON ${table} WHEN old.${id} <= ${indexed} BEGIN
         DELETE FROM ${fts(table)} WHERE rowid = -old.${id};
         INSERT INTO ${fts(table)}(rowid, ${list}) VALUES (-new.${id}, ${newValues}); END`,
    ];
  },
  catchUpSql: (table, id) => [catchUp(table, id)],
  defersIndexing: true,
  dropIndexDdl: (table) => [
    `DROP TRIGGER IF EXISTS ${fts(table)}_ai`,
    `DROP TRIGGER IF EXISTS ${fts(table)}_ad`,
    `DROP TRIGGER IF EXISTS ${fts(table)}_au`,
    `DROP TABLE IF EXISTS ${upto(table)}`,
    `DROP TABLE IF EXISTS ${fts(table)}`,
  ],
  // FTS5's layout (negated ids) is unchanged since its previous rebuild: nothing to upgrade.
  upgradeIndexDdl: () => [],
  // Its triggers hold their statements: nothing to replace.
  replaceIndexFunctionsDdl: () => [],
  matchQuery: ({ table, id, column, text, filters, limit, before, columns }) => {
    const words = searchWords(text);
    if (words.length === 0) return null;
    // Filters are matched as tokens inside the index first (a selective token drives the walk),
    // then exactly on the row.
    let match = `(${words.map((w) => `"${w}"`).join(' OR ')})`;
    const exact: string[] = [];
    const params: SqlValue[] = [];
    for (const [col, value] of Object.entries(filters)) {
      const tokens = searchWords(value);
      if (tokens.length > 0) match = `${col} : "${tokens.join(' ')}" AND ${column} : ${match}`;
      exact.push(`t.${col} = ?`);
      params.push(value);
    }
    if (Object.keys(filters).length === 0) match = `${column} : ${match}`;
    // Ids below `before` are negated rowids above `-before`: FTS5 starts its walk there.
    if (before !== undefined) {
      exact.unshift('f.rowid > ?');
      params.unshift(-before);
    }
    // FTS5 walks the doclists in rowid order (negated ids: newest first) and stops at the LIMIT.
    return {
      sql: `SELECT ${columns ? columns.map((c) => `t.${c}`).join(', ') : '-f.rowid AS id'} FROM ${fts(table)} f JOIN ${table} t ON t.${id} = -f.rowid WHERE ${fts(table)} MATCH ?${exact.map((e) => ` AND ${e}`).join('')} ORDER BY f.rowid LIMIT ?`,
      params: [match, ...params, limit],
    };
  },
};
