/**
 * Long-term memory retrieval as the store grows (10k / 100k / 1M memories, both stores): a scoped
 * full-text query of three words, an unscoped one, and the newest memories of a scope. Target: ≤ 10 ms
 * p99 at 1M, flat. Anchor: the hardware floor of the same database in the same run — a primary-key
 * point read of one memory — so the ratio says how many point reads one retrieval costs.
 */
import { retrieveMemories } from '../src/memory/long-term/index.ts';
import { scopeKey } from '../src/memory/long-term/records.ts';
import type { SqlValue, Store } from '../src/store/store.ts';
import { openTestStore, selectedStores } from '../src/testing/stores.ts';
import { type Bench, measure } from './lib/harness.ts';

const USERS = 1000;
const VOCABULARY = 20_000;
const WORDS_PER_MEMORY = 12;
const ROWS_PER_STATEMENT = 500;
const ROWS_PER_TX = 50_000;

/** Deterministic pseudo-random numbers (mulberry32), so every run loads the same memories. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Zipf-like word choice: a few common words, a long tail of rare ones (like real text).
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
          params.push(
            'user',
            `u${i % USERS}`,
            scopeKey({ scope_kind: 'user', scope_id: `u${i % USERS}` }),
            'note',
            text,
            '{}',
            now - (to - i) * 1000,
            now - (to - i) * 1000,
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

const bench: Bench = {
  name: 'long-term-memory',
  description: 'long-term memory retrieval p50/p99 at 10k / 100k / 1M memories vs a primary-key read',
  async run(ctx) {
    const sizes = ctx.quick ? [10_000] : [10_000, 100_000, 1_000_000];
    const iterations = ctx.quick ? 200 : 1000;
    for (const kind of selectedStores()) {
      const { store, dispose } = await openTestStore(kind);
      try {
        let loaded = 0;
        for (const size of sizes) {
          const t0 = Date.now();
          await load(store, loaded, size);
          loaded = size;
          ctx.log(`${kind}: loaded ${size} memories in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
          await store.run('ANALYZE long_term_memories');
          const q = rng(size);
          const query = () => `${word(q)} ${word(q)} ${word(q)}`;
          const floor = await measure(iterations, () =>
            store.get('SELECT memory_id, text FROM long_term_memories WHERE memory_id = ?', [
              1 + Math.floor(q() * size),
            ]),
          );
          const cases: Array<[string, () => Promise<unknown>]> = [
            [
              'scoped query, 3 words',
              () =>
                retrieveMemories(store, {
                  scope_kind: 'user',
                  scope_id: `u${Math.floor(q() * USERS)}`,
                  query_text: query(),
                  limit: 10,
                }),
            ],
            ['unscoped query, 3 words', () => retrieveMemories(store, { query_text: query(), limit: 10 })],
            [
              'newest of a scope',
              () => retrieveMemories(store, { scope_kind: 'user', scope_id: `u${Math.floor(q() * USERS)}` }),
            ],
          ];
          for (const [name, op] of cases) {
            const s = await measure(iterations, op);
            for (const metric of ['p50', 'p99'] as const) {
              ctx.row({
                case: `${kind} ${size} memories: ${name}`,
                metric,
                unit: 'µs',
                value: s[metric],
                anchor: 'primary-key read (floor)',
                anchor_value: floor[metric],
              });
            }
          }
        }
      } finally {
        await dispose();
      }
    }
  },
};

export default bench;
