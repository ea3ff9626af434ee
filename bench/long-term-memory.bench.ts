/**
 * Long-term memory retrieval as the store grows (10k / 100k / 1M memories, both stores). Target: ≤ 10 ms
 * p99 at 1M, flat. Anchor: the hardware floor of the same database in the same run — a primary-key
 * point read of one memory — so the ratio says how many point reads one retrieval costs.
 *
 * The data: 12 words per memory drawn from a Zipf vocabulary of 20 000 words (the commonest word is
 * in about half the memories, like "the" in English), 1 000 users with ~0.1% of the memories each,
 * and one heavy user holding 10% of them (100 000 at 1M). Queries: three words drawn from the same
 * Zipf law (mostly one common word and rarer ones), three common words (of the 10 commonest), three
 * rare words (never in the top 5 000), over an ordinary user, over the heavy user (common words over
 * 100k memories; Zipf words, mostly of middle frequency, are the worst case of a window-then-index
 * search) and over every scope. "Warm" cases run after 50 untimed queries;
 * "cold" is the first query of a freshly opened store (new connection: its page cache empty; the OS
 * file cache is not dropped on this shared machine, so the files may be in memory).
 *
 * The generated stores are cached between runs in `bench/.cache/` (gitignored; PostgreSQL: databases
 * named `noema_ltm_bench_*` next to NOEMA_TEST_POSTGRES_URL's), keyed by the data version (opening one
 * applies newer migrations to it), so only the first run pays for loading 1M memories. `--quick` measures 10k only.
 */
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { migrations } from '../src/app/migrations.ts';
import { retrieveMemories } from '../src/memory/long-term/index.ts';
import { scopeKey } from '../src/memory/long-term/records.ts';
import { openStore } from '../src/store/index.ts';
import type { SqlValue, Store } from '../src/store/store.ts';
import { type StoreKind, selectedStores, testPostgresUrl } from '../src/testing/stores.ts';
import { type Bench, type Samples, summarize } from './lib/harness.ts';
import { seededRandom } from './lib/random.ts';

const USERS = 1000;
const HEAVY = 'heavy';
const HEAVY_SHARE = 0.1;
const VOCABULARY = 20_000;
const WORDS_PER_MEMORY = 12;
const ROWS_PER_STATEMENT = 500;
const ROWS_PER_TX = 50_000;
/** Bump when the generated data changes. Opening a cached store applies any newer migration to it. */
const DATA_VERSION = 2;
const CACHE_DIR = join(import.meta.dirname, '.cache');
const CACHE_TAG = `v${DATA_VERSION}`;

/** The same memories in every run. */
const rng = seededRandom;

// Zipf word choice (P(rank k) ∝ 1/k): a few common words, a long tail of rare ones, like real text.
function word(r: () => number): string {
  return `w${Math.floor(VOCABULARY ** r() - 1)}`;
}

async function load(store: Store, from: number, to: number): Promise<void> {
  const r = rng(from + 1);
  const now = Date.now();
  const tuple = '(?, ?, ?, ?, ?, ?, ?, ?)';
  for (let start = from; start < to; start += ROWS_PER_TX) {
    const end = Math.min(to, start + ROWS_PER_TX);
    await store.transaction(async (tx) => {
      for (let s = start; s < end; s += ROWS_PER_STATEMENT) {
        const n = Math.min(ROWS_PER_STATEMENT, end - s);
        const params: SqlValue[] = [];
        for (let i = s; i < s + n; i++) {
          const text = Array.from({ length: WORDS_PER_MEMORY }, () => word(r)).join(' ');
          const user = r() < HEAVY_SHARE ? HEAVY : `u${Math.floor(r() * USERS)}`;
          const at = now - (to - i) * 1000;
          params.push(
            'user',
            user,
            scopeKey({ scope_kind: 'user', scope_id: user }),
            'note',
            text,
            '{}',
            at,
            at,
          );
        }
        await tx.run(
          `INSERT INTO long_term_memories (scope_kind, scope_id, scope_key, kind, text, meta_json, created_at_ms, updated_at_ms) VALUES ${new Array(n).fill(tuple).join(', ')}`,
          params,
        );
      }
    });
  }
}

/** Where the cached store of `size` memories lives (SQLite file or PostgreSQL database name). */
function cacheName(kind: StoreKind, size: number): string {
  return kind === 'sqlite'
    ? join(CACHE_DIR, `ltm_${CACHE_TAG}_${size}.db`)
    : `noema_ltm_bench_${CACHE_TAG}_${size}`;
}

async function withAdmin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: testPostgresUrl() });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

function pgUrl(db: string): string {
  const url = new URL(testPostgresUrl());
  url.pathname = `/${db}`;
  return url.toString();
}

async function cached(kind: StoreKind, size: number): Promise<boolean> {
  const name = cacheName(kind, size);
  if (kind === 'sqlite') return existsSync(name);
  return withAdmin(
    async (c) => (await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1,
  );
}

function open(kind: StoreKind, size: number): Promise<Store> {
  const name = cacheName(kind, size);
  return openStore(kind === 'sqlite' ? { kind, path: name } : { kind, url: pgUrl(name) }, { migrations });
}

/** Builds the cached store of `size` memories from the next smaller one (copied), unless it exists. */
async function ensure(
  kind: StoreKind,
  sizes: number[],
  index: number,
  log: (l: string) => void,
): Promise<void> {
  const size = sizes[index] as number;
  if (await cached(kind, size)) return;
  const prev = index > 0 ? (sizes[index - 1] as number) : 0;
  if (prev > 0) await ensure(kind, sizes, index - 1, log);
  const name = cacheName(kind, size);
  const building = kind === 'sqlite' ? `${name}.building` : `${name}_building`;
  if (kind === 'sqlite') {
    mkdirSync(CACHE_DIR, { recursive: true });
    rmSync(building, { force: true });
    if (prev > 0) copyFileSync(cacheName(kind, prev), building);
  } else {
    await withAdmin(async (c) => {
      await c.query(`DROP DATABASE IF EXISTS ${building}`);
      await c.query(`CREATE DATABASE ${building}${prev > 0 ? ` TEMPLATE ${cacheName(kind, prev)}` : ''}`);
    });
  }
  const t0 = Date.now();
  const store = await openStore(
    kind === 'sqlite' ? { kind, path: building } : { kind, url: pgUrl(building) },
    {
      migrations,
    },
  );
  try {
    await load(store, prev, size);
    await store.run(kind === 'sqlite' ? 'ANALYZE' : 'VACUUM ANALYZE');
  } finally {
    await store.close();
  }
  if (kind === 'sqlite') {
    renameSync(building, name);
  } else await withAdmin((c) => c.query(`ALTER DATABASE ${building} RENAME TO ${name}`));
  log(
    `${kind}: built the ${size}-memory store in ${((Date.now() - t0) / 1000).toFixed(1)} s (cached: ${name})`,
  );
}

/** Times `op` up to `iterations` times after `warmup` untimed runs, stopping after `budgetMs` (≥ 100 samples). */
async function measure(
  iterations: number,
  op: () => Promise<unknown>,
  warmup = 50,
  budgetMs = 5_000,
): Promise<Samples> {
  for (let i = 0; i < warmup; i++) await op();
  const out: number[] = [];
  const stop = Date.now() + budgetMs;
  for (let i = 0; i < iterations && (i < 100 || Date.now() < stop); i++) {
    const t0 = process.hrtime.bigint();
    await op();
    out.push(Number(process.hrtime.bigint() - t0) / 1000);
  }
  return summarize(out);
}

const common = (r: () => number) => `w${Math.floor(r() * 10)}`;
const rare = (r: () => number) => `w${5000 + Math.floor(r() * (VOCABULARY - 5001))}`;

const bench: Bench = {
  name: 'long-term-memory',
  description: 'long-term memory retrieval p50/p99 at 10k / 100k / 1M memories vs a primary-key read',
  async run(ctx) {
    const sizes = ctx.quick ? [10_000] : [10_000, 100_000, 1_000_000];
    const iterations = ctx.quick ? 200 : 500;
    for (const kind of selectedStores()) {
      for (let index = 0; index < sizes.length; index++) {
        const size = sizes[index] as number;
        await ensure(kind, sizes, index, ctx.log);
        // Statistics (and PostgreSQL's visibility map) as autovacuum would keep them, also after a
        // migration rebuilt the index of a cached store. Every table: a store's full-text index may
        // be a table of its own (PostgreSQL's posting table), read by index-only scans.
        const prepared = await open(kind, size);
        await prepared.run(kind === 'sqlite' ? 'ANALYZE' : 'VACUUM ANALYZE');
        await prepared.close();
        const q = rng(size);
        const three = (pick: (r: () => number) => string) => `${pick(q)} ${pick(q)} ${pick(q)}`;
        const user = () => `u${Math.floor(q() * USERS)}`;
        // Cold: the first query of a freshly opened store, 20 times.
        const cold: number[] = [];
        for (let i = 0; i < 20; i++) {
          const fresh = await open(kind, size);
          try {
            const t0 = process.hrtime.bigint();
            await retrieveMemories(fresh, {
              scope_kind: 'user',
              scope_id: user(),
              query_text: three(word),
              limit: 10,
            });
            cold.push(Number(process.hrtime.bigint() - t0) / 1000);
          } finally {
            await fresh.close();
          }
        }
        const store = await open(kind, size);
        const scoped = (scope_id: string, query_text: string) =>
          retrieveMemories(store, { scope_kind: 'user', scope_id, query_text, limit: 10 });
        try {
          const floor = await measure(iterations, () =>
            store.get('SELECT memory_id, text FROM long_term_memories WHERE memory_id = ?', [
              1 + Math.floor(q() * size),
            ]),
          );
          const cases: Array<[string, () => Promise<unknown>]> = [
            ['scoped, 3 Zipf words', () => scoped(user(), three(word))],
            ['scoped, 3 common words', () => scoped(user(), three(common))],
            ['scoped, 3 rare words', () => scoped(user(), three(rare))],
            [`heavy user (${size * HEAVY_SHARE}), 3 common words`, () => scoped(HEAVY, three(common))],
            [`heavy user (${size * HEAVY_SHARE}), 3 rare words`, () => scoped(HEAVY, three(rare))],
            [`heavy user (${size * HEAVY_SHARE}), 3 Zipf words`, () => scoped(HEAVY, three(word))],
            ['unscoped, 3 Zipf words', () => retrieveMemories(store, { query_text: three(word), limit: 10 })],
            ['unscoped, 3 rare words', () => retrieveMemories(store, { query_text: three(rare), limit: 10 })],
            ['newest of a scope', () => retrieveMemories(store, { scope_kind: 'user', scope_id: user() })],
          ];
          const rows: Array<[string, Samples, Samples]> = [
            ['scoped, 3 Zipf words, cold', summarize(cold), floor],
          ];
          for (const [name, op] of cases) rows.push([`${name}, warm`, await measure(iterations, op), floor]);
          for (const [name, s, f] of rows) {
            for (const metric of ['p50', 'p99'] as const) {
              ctx.row({
                case: `${kind} ${size} memories: ${name}`,
                metric,
                unit: 'µs',
                value: s[metric],
                anchor: 'primary-key read (floor)',
                anchor_value: f[metric],
              });
            }
          }
        } finally {
          await store.close();
        }
      }
    }
  },
};

export default bench;
