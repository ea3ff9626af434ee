/**
 * `store`: a durable single-row append (one commit per append) through the Store, next to the
 * raw driver doing the same in the same run. Target: Store overhead ≤ 1.2× the raw driver.
 */
import { DatabaseSync } from 'node:sqlite';
import pg from 'pg';
import { openTestStore, selectedStores } from '../src/testing/stores.ts';
import { type Bench, measure } from './lib/harness.ts';

const INSERT = 'INSERT INTO bench_append (worker, payload, created_at) VALUES (?, ?, ?)';
const PAYLOAD = 'x'.repeat(64);

export default {
  name: 'store',
  description: 'durable single-row append through the Store vs the raw driver (one commit each)',
  async run(ctx) {
    const n = ctx.quick ? 500 : 5_000;
    for (const kind of selectedStores()) {
      const ts = await openTestStore(kind);
      try {
        await ts.store.run(
          `CREATE TABLE bench_append (seq ${ts.store.dialect.autoId}, worker TEXT NOT NULL, payload TEXT NOT NULL, created_at ${ts.store.dialect.bigint} NOT NULL)`,
        );
        const iterations = kind === 'postgres' ? Math.ceil(n / 2) : n;
        let raw: Awaited<ReturnType<typeof measure>>;
        if (kind === 'sqlite') {
          // The raw driver on its own connection, with the same pragmas the Store sets.
          const db = new DatabaseSync(ts.url);
          db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA busy_timeout = 10000');
          const stmt = db.prepare(INSERT);
          raw = await measure(iterations, (i) => stmt.run('raw', PAYLOAD, i));
          db.close();
        } else {
          const client = new pg.Client({ connectionString: ts.url });
          await client.connect();
          const text = 'INSERT INTO bench_append (worker, payload, created_at) VALUES ($1, $2, $3)';
          raw = await measure(iterations, (i) =>
            client.query({ name: 'raw_append', text, values: ['raw', PAYLOAD, i] }),
          );
          await client.end();
        }
        const viaRun = await measure(iterations, (i) => ts.store.run(INSERT, ['store', PAYLOAD, i]));
        const viaTx = await measure(iterations, (i) =>
          ts.store.transaction((tx) => tx.run(INSERT, ['tx', PAYLOAD, i])),
        );
        const driver = kind === 'sqlite' ? 'node:sqlite raw' : 'pg raw client';
        ctx.row({ case: `${kind} raw driver`, metric: 'append p50', unit: 'µs', value: raw.p50 });
        ctx.row({
          case: `${kind} Store.run`,
          metric: 'append p50',
          unit: 'µs',
          value: viaRun.p50,
          anchor: driver,
          anchor_value: raw.p50,
        });
        ctx.row({
          case: `${kind} Store.run`,
          metric: 'append p99',
          unit: 'µs',
          value: viaRun.p99,
          anchor: driver,
          anchor_value: raw.p99,
        });
        // BEGIN + INSERT + COMMIT: shown for scale, not compared with the autocommit anchor.
        ctx.row({ case: `${kind} Store.transaction`, metric: 'append p50', unit: 'µs', value: viaTx.p50 });
        const overhead = viaRun.p50 / raw.p50;
        ctx.row({
          case: `${kind} Store.run`,
          metric: 'overhead vs raw (target ≤ 1.2)',
          unit: '×',
          value: overhead,
        });
      } finally {
        await ts.dispose();
      }
    }
  },
} satisfies Bench;
