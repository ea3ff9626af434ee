/**
 * A Store that counts what goes to the database: transactions (`transaction()` calls), autocommit
 * statements outside a transaction (each its own commit on PostgreSQL), commits that wait for the
 * disk (transactions not `durability: 'deferred'`, and writes outside a transaction), and statements in all.
 * `trace` (env BENCH_AGENT_TRACE=1) logs each autocommit statement, and each transaction with its
 * statements (indented) when it ends, to see where they come from.
 */
import type { Queryable, Store, Transaction } from '../../src/store/store.ts';

export interface StoreCounts {
  transactions: number;
  autocommit: number;
  /** Commits that wait for the disk: transactions not `deferred`, and statements that write outside one. */
  synchronous: number;
  statements: number;
}

export function countingStore(
  inner: Store,
  trace?: (line: string) => void,
): { store: Store; counts: StoreCounts } {
  const counts: StoreCounts = { transactions: 0, autocommit: 0, synchronous: 0, statements: 0 };
  const short = (sql: string) => sql.replace(/\s+/g, ' ').trim().slice(0, 90);
  const note = (sql: string, inTx: string[] | undefined, write = false) => {
    counts.statements++;
    if (inTx) {
      if (trace) inTx.push(`      ${short(sql)}`);
      return;
    }
    counts.autocommit++;
    if (write) counts.synchronous++;
    trace?.(`auto  ${short(sql)}`);
  };
  const wrap = <Q extends Queryable>(q: Q, inTx?: string[]): Queryable => ({
    dialect: q.dialect,
    run(sql, params) {
      note(sql, inTx, true);
      return q.run(sql, params);
    },
    all(sql, params) {
      note(sql, inTx);
      return q.all(sql, params);
    },
    get(sql, params) {
      note(sql, inTx);
      return q.get(sql, params);
    },
  });
  const top = wrap(inner);
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
      const deferred = options?.durability === 'deferred';
      if (!deferred) counts.synchronous++;
      const statements: string[] = [];
      return inner
        .transaction(
          (tx) =>
            fn({
              ...wrap(tx, statements),
              dialect: tx.dialect,
              notify: (c, p) => tx.notify(c, p),
              lockKey: (s) => tx.lockKey(s),
              lockRows: (s, p, m) => tx.lockRows(s, p, m),
              write: (sql, p) => {
                note(sql, statements, true);
                tx.write(sql, p);
              },
              writeOne: (sql, p, miss) => {
                note(sql, statements, true);
                tx.writeOne(sql, p, miss);
              },
              writeReturning: (sql, p, rows) => {
                note(sql, statements, true);
                tx.writeReturning(sql, p, rows);
              },
            } as Transaction),
          options,
        )
        .finally(() =>
          trace?.(
            `tx    (${statements.length} statements${deferred ? ', deferred' : ''})\n${statements.join('\n')}`,
          ),
        );
    },
    tableNames: () => inner.tableNames(),
    close: () => inner.close(),
  };
  if (inner.listen) store.listen = inner.listen.bind(inner);
  return { store, counts };
}
