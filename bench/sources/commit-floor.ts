/**
 * The floor of a traced call: what recording a call durably must do at the least — a raw commit of
 * the running row before the request is sent, and a raw commit of the finished row before the answer
 * is returned — around the same bare call. Each commit is one statement committed on its own, on a
 * bare connection (node:sqlite with Noema's pragmas on a database file of its own, or a `pg` client
 * to the store's PostgreSQL database), with no Noema code in between.
 */
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import type { StoreKind } from '../../src/testing/stores.ts';

export interface CommitFloor {
  /** Commits the running row, awaits `call`, commits the finished row with `response`. */
  around(call: () => Promise<void>, request: unknown, response: unknown): Promise<void>;
  /** Microseconds the last `around` spent in its two commits (the statements, the call left out). */
  readonly lastCommitsUs: number;
  close(): Promise<void>;
}

const CREATE =
  'CREATE TABLE IF NOT EXISTS bench_floor_calls (id BIGINT PRIMARY KEY, status TEXT NOT NULL, request_json TEXT NOT NULL, response_json TEXT, started_at BIGINT NOT NULL, ended_at BIGINT)';

/** `path` is a SQLite file of the floor's own (kind `sqlite`) or the store's PostgreSQL URL. */
export async function openCommitFloor(kind: StoreKind, location: string): Promise<CommitFloor> {
  let id = 0;
  let lastCommitsUs = 0;
  /** Microseconds since `t0` (a `process.hrtime.bigint()`). */
  const since = (t0: bigint): number => Number(process.hrtime.bigint() - t0) / 1000;
  if (kind === 'sqlite') {
    const db = new DatabaseSync(location);
    db.exec('PRAGMA journal_mode = WAL');
    db.exec('PRAGMA synchronous = NORMAL');
    db.exec(CREATE);
    const running = db.prepare(
      "INSERT INTO bench_floor_calls (id, status, request_json, started_at) VALUES (?, 'running', ?, ?)",
    );
    const finished = db.prepare(
      "UPDATE bench_floor_calls SET status = 'succeeded', response_json = ?, ended_at = ? WHERE id = ?",
    );
    return {
      async around(call, request, response) {
        const n = ++id;
        // Timed synchronously, as they run: the floor's commits gain no turn of the event loop.
        let t0 = process.hrtime.bigint();
        running.run(n, JSON.stringify(request), Date.now());
        lastCommitsUs = since(t0);
        await call();
        t0 = process.hrtime.bigint();
        finished.run(JSON.stringify(response), Date.now(), n);
        lastCommitsUs += since(t0);
      },
      get lastCommitsUs() {
        return lastCommitsUs;
      },
      async close() {
        db.close();
      },
    };
  }
  const client = new pg.Client({ connectionString: location });
  await client.connect();
  await client.query(CREATE);
  const running = {
    name: 'floor-running',
    text: "INSERT INTO bench_floor_calls (id, status, request_json, started_at) VALUES ($1, 'running', $2, $3)",
  };
  const finished = {
    name: 'floor-finished',
    text: "UPDATE bench_floor_calls SET status = 'succeeded', response_json = $1, ended_at = $2 WHERE id = $3",
  };
  return {
    async around(call, request, response) {
      const n = ++id;
      let t0 = process.hrtime.bigint();
      await client.query({ ...running, values: [n, JSON.stringify(request), Date.now()] });
      lastCommitsUs = since(t0);
      await call();
      t0 = process.hrtime.bigint();
      await client.query({ ...finished, values: [JSON.stringify(response), Date.now(), n] });
      lastCommitsUs += since(t0);
    },
    get lastCommitsUs() {
      return lastCommitsUs;
    },
    async close() {
      await client.end();
    },
  };
}
