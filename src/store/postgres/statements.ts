/**
 * A statement's way to the server: its `$n` text, its values, its name where it is prepared once per
 * connection, and `pg`'s query object submitted on a pool or a checked-out connection.
 */
import { createHash } from 'node:crypto';
import pg from 'pg';
import { assertStorableParams } from '../params.ts';
import type { SqlValue } from '../store.ts';
import { toPostgresPlaceholders } from './placeholders.ts';
import { translatePostgresError } from './translate-error.ts';

/**
 * A named statement stays prepared on every pooled connection that ran it, for the connection's
 * life, and `pg` offers no way to forget one. So only SQL of a fixed shape is named, and at most
 * POSTGRES_NAMED_STATEMENTS distinct texts per process (the hot ones come first); any other SQL,
 * such as an `IN (?, ?, …)` list whose length follows the input, runs as an unnamed statement.
 */
export const POSTGRES_NAMED_STATEMENTS = 500;
const statementNames = new Map<string, string>();
const VARIABLE_IN_LIST = /\bIN\s*\(\s*\?(\s*,\s*\?)+\s*\)/i;

/** The statement's name, or undefined to run it unnamed. `text` is the portable SQL, `sql` its `$n` form. */
function nameFor(text: string, sql: string): string | undefined {
  const known = statementNames.get(sql);
  if (known !== undefined) return known;
  if (statementNames.size >= POSTGRES_NAMED_STATEMENTS || VARIABLE_IN_LIST.test(text)) return undefined;
  const name = `n_${createHash('sha1').update(sql).digest('hex').slice(0, 24)}`;
  statementNames.set(sql, name);
  return name;
}

/**
 * The statement as `pg`'s own query object, made from its text and values. A config object
 * (`{ name, text, values }`) handed to `query()` is first copied by property descriptors
 * (`cloneQueryConfig`), 1.3 µs a statement in a loop of its own and about 0.8 ms of a flowchart run's
 * CPU on PostgreSQL; a query object is submitted as it is.
 */
export function query(text: string, params: readonly SqlValue[]): pg.Query {
  assertStorableParams(params);
  const sql = toPostgresPlaceholders(text);
  const values = params.map((p) => (p === true ? 1 : p === false ? 0 : p));
  const q = new pg.Query(sql, values);
  const name = nameFor(text, sql);
  // Read when the query is submitted (named: prepared once per connection), as the config's would be.
  if (name !== undefined) (q as pg.Query & { name?: string }).name = name;
  return q;
}

type QueryCallback = (err: Error | null, res: pg.QueryResult) => void;

/**
 * Submits a query object: a pool runs it on a connection it checks out and answers with a promise;
 * a connection answers through the query's callback (its `query()` returns the query object).
 */
export function submit(client: pg.Pool | pg.PoolClient, q: pg.Query): Promise<pg.QueryResult> {
  if (client instanceof pg.Pool) return client.query(q) as unknown as Promise<pg.QueryResult>;
  return new Promise((resolve, reject) => {
    (q as pg.Query & { callback?: QueryCallback }).callback = (err, res) =>
      err ? reject(err) : resolve(res);
    client.query(q);
  });
}

export async function exec(client: pg.Pool | pg.PoolClient, sql: string, params: readonly SqlValue[]) {
  try {
    return await submit(client, query(sql, params));
  } catch (err) {
    throw translatePostgresError(err);
  }
}
