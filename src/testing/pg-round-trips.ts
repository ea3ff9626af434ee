/**
 * Counts PostgreSQL round trips at the `pg` client, for the benches' `round-trips.ts` scripts and the tests: a
 * query sent while none of its connection's is in flight, or after one of its answers came back since
 * the connection's last query was sent (it may have waited for that answer), starts one (on the
 * pipelined connection, the queries sent together share it); COMMITs are counted as waiting for the disk or
 * not (`synchronous_commit = off`). An autocommit statement (outside BEGIN … COMMIT) waits for the
 * disk too and is not counted as a COMMIT. With `tracing`, `lines` lists the queries, `RT` marking
 * each that starts a round trip and `SYNC` each COMMIT that waits.
 */
import pg from 'pg';

export interface PgCounts {
  roundTrips: number;
  queries: number;
  synchronousCommits: number;
  deferredCommits: number;
}

/** Patches `pg.Client.prototype.query` for the rest of the process and returns what it counts. */
export function countPgRoundTrips(tracing: boolean): { counts: PgCounts; lines: string[] } {
  const counts: PgCounts = { roundTrips: 0, queries: 0, synchronousCommits: 0, deferredCommits: 0 };
  const lines: string[] = [];
  const inFlight = new WeakMap<object, number>();
  /** Connections an answer came back on since their last query was sent. */
  const answered = new WeakSet<object>();
  const deferredTx = new WeakMap<object, boolean>();
  type Query = (this: pg.Client, config: unknown, ...rest: unknown[]) => unknown;
  const query = pg.Client.prototype.query as unknown as Query;
  (pg.Client.prototype as unknown as { query: Query }).query = function (config, ...rest) {
    const text = typeof config === 'string' ? config : ((config as { text?: string } | null)?.text ?? '');
    const n = inFlight.get(this) ?? 0;
    const starts = n === 0 || answered.has(this);
    answered.delete(this);
    if (starts) counts.roundTrips++;
    counts.queries++;
    if (text.startsWith('BEGIN')) deferredTx.set(this, text.includes('synchronous_commit = off'));
    let mark = '    ';
    if (text.trim().endsWith('COMMIT')) {
      if (deferredTx.get(this)) counts.deferredCommits++;
      else {
        counts.synchronousCommits++;
        mark = 'SYNC';
      }
    }
    if (tracing) lines.push(`${starts ? 'RT' : '  '} ${mark} ${text.replace(/\s+/g, ' ').slice(0, 110)}`);
    inFlight.set(this, n + 1);
    const done = () => {
      inFlight.set(this, (inFlight.get(this) ?? 1) - 1);
      answered.add(this);
    };
    // A query object (the store submits its statements so) answers through its own callback.
    const submitted = config as { submit?: unknown; callback?: (...args: unknown[]) => unknown } | null;
    if (typeof submitted?.submit === 'function' && typeof submitted.callback === 'function') {
      const answer = submitted.callback;
      submitted.callback = (...args: unknown[]) => {
        done();
        return answer(...args);
      };
      return query.call(this, config, ...rest);
    }
    const last = rest.at(-1);
    if (typeof last === 'function') {
      rest[rest.length - 1] = (...args: unknown[]) => {
        done();
        return last(...args);
      };
      return query.call(this, config, ...rest);
    }
    const out = query.call(this, config, ...rest) as Promise<unknown> | undefined;
    out?.then(done, done);
    return out;
  };
  return { counts, lines };
}
