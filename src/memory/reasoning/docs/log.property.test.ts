// Property specs: for random branch trees, writes and merges, show and diff equal a naive
// materialization computed from the raw table, and merge is idempotent.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { Store } from '../../../store/store.ts';
import { describeEachStore } from '../../../testing/each-store.ts';
import { branchCreate } from '../branch-ops.ts';
import { init } from '../workspace-ops.ts';
import { diff } from './diff-op.ts';
import { merge } from './merge.ts';
import { notesCommit } from './notes.ts';
import { show } from './show.ts';

type Op = { t: 'branch'; from: number } | { t: 'note'; on: number } | { t: 'merge'; a: number; b: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ t: fc.constant('branch' as const), from: fc.nat(20) }) },
  { weight: 5, arbitrary: fc.record({ t: fc.constant('note' as const), on: fc.nat(20) }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant('merge' as const), a: fc.nat(20), b: fc.nat(20) }) },
);

type Raw = { seq: number; branch: string; content: string; origin_seq: number };

async function naive(store: Store, ws: string) {
  const rows = (
    await store.all<Raw>(
      'SELECT seq, branch, content, origin_seq FROM doc_entries WHERE workspace = ? ORDER BY seq',
      [ws],
    )
  ).map((r) => ({ ...r, seq: Number(r.seq), origin_seq: Number(r.origin_seq) }));
  const branches = new Map(
    (
      await store.all<{ name: string; base_branch: string | null; base_seq: number | null }>(
        'SELECT name, base_branch, base_seq FROM reasoning_branches WHERE workspace = ?',
        [ws],
      )
    ).map((b) => [b.name, b] as const),
  );
  const view = (name: string, cutoff = Number.POSITIVE_INFINITY): Raw[] => {
    const b = branches.get(name);
    const own = rows.filter((r) => r.branch === name && r.seq <= cutoff);
    if (!b?.base_branch) return own;
    return [...own, ...view(b.base_branch, Math.min(cutoff, Number(b.base_seq)))];
  };
  const sorted = (xs: Raw[]) => xs.map((r) => r.seq).sort((x, y) => y - x);
  return {
    show: (name: string) => sorted(view(name)),
    diff: (from: string, to: string) => {
      const have = new Set(view(from).map((r) => r.origin_seq));
      return sorted(view(to).filter((r) => !have.has(r.origin_seq)));
    },
    originsOf: (name: string) => new Set(view(name).map((r) => r.origin_seq)),
  };
}

async function pageAll(
  fetch: (
    cursor: number | null,
  ) => Promise<{ entries: Array<{ seq: number }>; pagination: { has_more: boolean; next_cursor?: number } }>,
) {
  const seqs: number[] = [];
  let cursor: number | null = null;
  for (let guard = 0; guard < 1000; guard++) {
    const page = await fetch(cursor);
    seqs.push(...page.entries.map((e) => e.seq));
    if (!page.pagination.has_more) return seqs;
    cursor = page.pagination.next_cursor ?? null;
  }
  throw new Error('pagination did not terminate');
}

describeEachStore('reasoning log properties', (factory) => {
  const runs = factory.kind === 'sqlite' ? 60 : 15;

  test('show and diff equal a naive materialization; merge is idempotent and merged notes leave both diffs', async () => {
    const { store, dispose } = await factory.open();
    let n = 0;
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.array(opArb, { minLength: 1, maxLength: 25 }),
          fc.integer({ min: 1, max: 4 }),
          async (ops, limit) => {
            const ws = `p${n++}`;
            await init(store, { workspace: ws });
            const names = ['main'];
            let k = 0;
            for (const op of ops) {
              if (op.t === 'branch') {
                const name = `b${names.length}`;
                await branchCreate(store, {
                  workspace: ws,
                  name,
                  from: names[op.from % names.length] as string,
                });
                names.push(name);
              } else if (op.t === 'note') {
                await notesCommit(store, {
                  workspace: ws,
                  branch: names[op.on % names.length] as string,
                  doc: 'notes',
                  content: `c${k++}`,
                });
              } else {
                const a = names[op.a % names.length] as string;
                const b = names[op.b % names.length] as string;
                for (let cursor: number | null = null, guard = 0; guard < 100; guard++) {
                  const r = await merge(store, { workspace: ws, from: a, into: b, limit, cursor });
                  if (!r.pagination.has_more) break;
                  cursor = r.pagination.next_cursor ?? null;
                }
                const count = await store.get<{ n: number }>(
                  'SELECT COUNT(*) AS n FROM doc_entries WHERE workspace = ?',
                  [ws],
                );
                const again = await merge(store, { workspace: ws, from: a, into: b, limit: 500 });
                assert.equal(again.merged, 0, 'a repeated merge copies nothing');
                const after = await store.get<{ n: number }>(
                  'SELECT COUNT(*) AS n FROM doc_entries WHERE workspace = ?',
                  [ws],
                );
                assert.equal(Number(after?.n), Number(count?.n));
                const model = await naive(store, ws);
                const merged = model.originsOf(a);
                for (const [from, to] of [
                  [a, b],
                  [b, a],
                ] as const) {
                  const got = await pageAll((cursor) =>
                    diff(store, { workspace: ws, from, to, limit: 50, cursor }),
                  );
                  const origins = await store.all<{ seq: number; origin_seq: number }>(
                    'SELECT seq, origin_seq FROM doc_entries WHERE workspace = ?',
                    [ws],
                  );
                  const originOf = new Map(origins.map((r) => [Number(r.seq), Number(r.origin_seq)]));
                  for (const s of got)
                    assert.ok(
                      !merged.has(originOf.get(s) as number),
                      `diff(${from}→${to}) lists merged note ${s}`,
                    );
                }
              }
            }
            const model = await naive(store, ws);
            for (const name of names) {
              const got = await pageAll((cursor) =>
                show(store, { workspace: ws, branch: name, doc: 'notes', limit, cursor }),
              );
              assert.deepEqual(got, model.show(name), `show ${name}`);
            }
            for (const from of names) {
              for (const to of names) {
                const got = await pageAll((cursor) =>
                  diff(store, { workspace: ws, from, to, doc: 'notes', limit, cursor }),
                );
                assert.deepEqual(got, model.diff(from, to), `diff ${from}→${to}`);
              }
            }
          },
        ),
        { numRuns: runs },
      );
    } finally {
      await dispose();
    }
  });
});
