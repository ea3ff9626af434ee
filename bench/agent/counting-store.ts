/**
 * A Store that counts what goes to the database: transactions (`transaction()` calls), autocommit
 * statements outside a transaction (each its own commit on PostgreSQL), and statements in all.
 * `trace` (env BENCH_AGENT_TRACE=1) logs each transaction's first statement, to see where they come from.
 */
import type { Queryable, Store, Transaction } from '../../src/store/store.ts';

export interface StoreCounts {
  transactions: number;
  autocommit: number;
  statements: number;
}

export function countingStore(
  inner: Store,
  trace?: (line: string) => void,
): { store: Store; counts: StoreCounts } {
  const counts: StoreCounts = { transactions: 0, autocommit: 0, statements: 0 };
  const short = (sql: string) => sql.replace(/\s+/g, ' ').trim().slice(0, 90);
  const wrap = <Q extends Queryable>(q: Q, auto: boolean, first?: { sql: string | null }): Queryable => ({
    dialect: q.dialect,
    run(sql, params) {
      counts.statements++;
      if (auto) {
        counts.autocommit++;
        trace?.(`auto  ${short(sql)}`);
      } else if (first && first.sql === null) first.sql = sql;
      return q.run(sql, params);
    },
    all(sql, params) {
      counts.statements++;
      if (auto) {
        counts.autocommit++;
        trace?.(`auto  ${short(sql)}`);
      } else if (first && first.sql === null) first.sql = sql;
      return q.all(sql, params);
    },
    get(sql, params) {
      counts.statements++;
      if (auto) {
        counts.autocommit++;
        trace?.(`auto  ${short(sql)}`);
      } else if (first && first.sql === null) first.sql = sql;
      return q.get(sql, params);
    },
  });
  const top = wrap(inner, true);
  const store: Store = {
    get dialect() {
      return inner.dialect;
    },
    get capabilities() {
      return inner.capabilities;
    },
    get location() {
      return inner.location;
    },
    run: top.run,
    all: top.all,
    get: top.get,
    transaction(fn, options) {
      counts.transactions++;
      const first = { sql: null as string | null };
      return inner
        .transaction(
          (tx) =>
            fn({
              ...wrap(tx, false, first),
              dialect: tx.dialect,
              notify: (c, p) => tx.notify(c, p),
              lockKey: (s) => tx.lockKey(s),
              lockRows: (s, p, m) => tx.lockRows(s, p, m),
            } as Transaction),
          options,
        )
        .finally(() => trace?.(`tx    ${short(first.sql ?? '(empty)')}`));
    },
    tableNames: () => inner.tableNames(),
    close: () => inner.close(),
  };
  if (inner.listen) store.listen = inner.listen.bind(inner);
  return { store, counts };
}
