/**
 * Reasoning memory benchmark: notes_commit/show/diff at 10k/100k/1M entries (in-process and over
 * MCP stdio), graph_apply/graph_query at 10k/100k nodes, show on a branch 32 ancestors deep, and
 * a side-by-side growth run against @modelcontextprotocol/server-memory up to 50k entities.
 */
import { diff } from '../src/memory/reasoning/docs/diff-op.ts';
import { notesCommit } from '../src/memory/reasoning/docs/notes.ts';
import { show } from '../src/memory/reasoning/docs/show.ts';
import { graphApply } from '../src/memory/reasoning/graph/apply.ts';
import { graphQuery } from '../src/memory/reasoning/graph/query.ts';
import { openTestStore, type StoreKind } from '../src/testing/stores.ts';
import { type Bench, type BenchContext, measure, type Samples } from './lib/harness.ts';
import { type Caller, noemaMcp, referenceMemory } from './reasoning-memory/clients.ts';
import { createBranch, initWorkspace, loadEntries, loadNodes } from './reasoning-memory/load.ts';

const WS = 'bench';
const ms = (us: number) => us / 1000;

function report(ctx: BenchContext, kase: string, op: string, s: Samples): void {
  ctx.row({ case: kase, metric: `${op} p50`, unit: 'ms', value: ms(s.p50) });
  ctx.row({ case: kase, metric: `${op} p99`, unit: 'ms', value: ms(s.p99) });
}

function label(n: number): string {
  return n >= 1_000_000 ? `${n / 1_000_000}M` : `${n / 1000}k`;
}

async function timed<T>(ctx: BenchContext, what: string, f: () => Promise<T>): Promise<T> {
  const t0 = performance.now();
  const v = await f();
  ctx.log(`  ${what}: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  return v;
}

/** notes_commit, show and diff on a store of `n` entries: half on main, then a feature branch, then a quarter each. */
async function logAtSize(ctx: BenchContext, n: number): Promise<void> {
  const t = await openTestStore('sqlite');
  const { store } = t;
  const kase = `log ${label(n)} entries`;
  try {
    await timed(ctx, `build ${label(n)} entries`, async () => {
      await initWorkspace(store, WS);
      await loadEntries(store, WS, 'main', 'notes', n / 2);
      await createBranch(store, WS, 'feature', 'main');
      await loadEntries(store, WS, 'main', 'notes', n / 4);
      await loadEntries(store, WS, 'feature', 'notes', n / 4);
    });
    const iters = ctx.quick ? 100 : 1000;
    const main = { workspace: WS, branch: 'main', doc: 'notes' };
    report(
      ctx,
      `${kase} in-process`,
      'notes_commit',
      await measure(iters, () => notesCommit(store, { ...main, content: 'bench note' })),
    );
    report(
      ctx,
      `${kase} in-process`,
      'show newest 20',
      await measure(iters, () => show(store, { ...main, limit: 20 })),
    );
    report(
      ctx,
      `${kase} in-process`,
      'show 20 at a random cursor',
      await measure(iters, (i) => show(store, { ...main, limit: 20, cursor: 2 + ((i * 7919) % (n - 1)) })),
    );
    report(
      ctx,
      `${kase} in-process`,
      'show newest 20 on a branch',
      await measure(iters, () => show(store, { ...main, branch: 'feature', limit: 20 })),
    );
    report(
      ctx,
      `${kase} in-process`,
      'diff main→feature 20',
      await measure(iters, () =>
        diff(store, { workspace: WS, from: 'main', to: 'feature', doc: 'notes', limit: 20 }),
      ),
    );
    report(
      ctx,
      `${kase} in-process`,
      'diff feature→main 20',
      await measure(iters, () =>
        diff(store, { workspace: WS, from: 'feature', to: 'main', doc: 'notes', limit: 20 }),
      ),
    );
    const mcp = await noemaMcp(t.url);
    try {
      const k = `${kase} MCP stdio`;
      report(
        ctx,
        k,
        'notes_commit',
        await measure(iters, () => mcp.call('branchmind_notes_commit', { ...main, content: 'bench note' })),
      );
      report(
        ctx,
        k,
        'show newest 20',
        await measure(iters, () => mcp.call('branchmind_show', { ...main, limit: 20 })),
      );
      report(
        ctx,
        k,
        'diff main→feature 20',
        await measure(iters, () =>
          mcp.call('branchmind_diff', {
            workspace: WS,
            from: 'main',
            to: 'feature',
            doc: 'notes',
            limit: 20,
          }),
        ),
      );
    } finally {
      await mcp.close();
    }
  } finally {
    await t.dispose();
  }
}

/** graph_apply and graph_query on a graph doc of `n` nodes (plus a derived branch with 100 own nodes). */
async function graphAtSize(ctx: BenchContext, n: number, kind: StoreKind = 'sqlite'): Promise<void> {
  const t = await openTestStore(kind);
  const { store } = t;
  const kase = `graph ${label(n)} nodes${kind === 'sqlite' ? '' : ` (${kind})`}`;
  try {
    await timed(ctx, `build ${label(n)} nodes`, async () => {
      await initWorkspace(store, WS);
      await loadNodes(store, WS, 'main', 'graph', n);
      await createBranch(store, WS, 'alt', 'main');
      // A live PostgreSQL has planner statistics (autovacuum analyzes after bulk changes); a freshly bulk-loaded one does not yet.
      if (kind === 'postgres') await store.run('ANALYZE');
    });
    const g = { workspace: WS, branch: 'main', doc: 'graph' };
    const iters = ctx.quick ? 100 : 1000;
    await graphApply(store, {
      ...g,
      branch: 'alt',
      ops: Array.from({ length: 100 }, (_, i) => ({
        op: 'node_upsert',
        id: `alt${i}`,
        type: 'note',
        title: 'alt',
      })),
    });
    const inp = `${kase} in-process`;
    report(
      ctx,
      inp,
      'graph_apply 1 upsert',
      await measure(iters, (i) =>
        graphApply(store, { ...g, ops: [{ op: 'node_upsert', id: `new${i}`, type: 'note', title: 'x' }] }),
      ),
    );
    report(
      ctx,
      inp,
      'graph_apply 100 upserts',
      await measure(ctx.quick ? 10 : 100, (i) =>
        graphApply(store, {
          ...g,
          ops: Array.from({ length: 100 }, (_, j) => ({
            op: 'node_upsert',
            id: `b${i}-${j}`,
            type: 'note',
            text: 'batch',
          })),
        }),
      ),
    );
    report(ctx, inp, 'graph_query newest 50', await measure(iters, () => graphQuery(store, g)));
    report(
      ctx,
      inp,
      'graph_query types+status',
      await measure(iters, () => graphQuery(store, { ...g, types: ['evidence'], status: 'open' })),
    );
    report(
      ctx,
      inp,
      'graph_query tags_any',
      await measure(iters, () => graphQuery(store, { ...g, tags_any: ['t7'] })),
    );
    report(
      ctx,
      inp,
      'graph_query text (1% match)',
      await measure(iters, () => graphQuery(store, { ...g, text: 'topic-42' })),
    );
    report(
      ctx,
      inp,
      'graph_query text (1 match, first page = one 5000-node window)',
      await measure(ctx.quick ? 20 : 100, () => graphQuery(store, { ...g, text: `number ${n - 7} about` })),
    );
    // Every match of a rare term: follow next_cursor through all windows (n / 5000 calls).
    report(
      ctx,
      inp,
      'graph_query text (1 match), every page to the end',
      await measure(
        ctx.quick ? 3 : 10,
        async () => {
          let cursor: number | undefined;
          for (;;) {
            const r = await graphQuery(store, {
              ...g,
              text: `number ${n - 7} about`,
              ...(cursor ? { cursor } : {}),
            });
            if (!r.pagination.has_more) break;
            cursor = r.pagination.next_cursor;
          }
        },
        1,
      ),
    );
    report(
      ctx,
      inp,
      'graph_query at a random cursor',
      await measure(iters, (i) => graphQuery(store, { ...g, cursor: 2 + ((i * 7919) % (n - 1)) })),
    );
    report(
      ctx,
      inp,
      'graph_query ids (20)',
      await measure(iters, (i) =>
        graphQuery(store, { ...g, ids: Array.from({ length: 20 }, (_, j) => `n${(i * 31 + j * 997) % n}`) }),
      ),
    );
    report(
      ctx,
      inp,
      'graph_query on a derived branch',
      await measure(iters, () => graphQuery(store, { ...g, branch: 'alt' })),
    );
    const mcp = await noemaMcp(t.url);
    try {
      const k = `${kase} MCP stdio`;
      report(
        ctx,
        k,
        'graph_query newest 50',
        await measure(iters, () => mcp.call('branchmind_graph_query', g)),
      );
      report(
        ctx,
        k,
        'graph_apply 1 upsert',
        await measure(iters, (i) =>
          mcp.call('branchmind_graph_apply', {
            ...g,
            ops: [{ op: 'node_upsert', id: `m${i}`, type: 'note', title: 'x' }],
          }),
        ),
      );
    } finally {
      await mcp.close();
    }
  } finally {
    await t.dispose();
  }
}

/** show on the tip of a chain of 32 branches (each with its own entries) over a 100k-entry main. */
async function deepBranch(ctx: BenchContext): Promise<void> {
  const t = await openTestStore('sqlite');
  const { store } = t;
  try {
    const base = ctx.quick ? 10_000 : 100_000;
    await timed(ctx, 'build 32-deep branch chain', async () => {
      await initWorkspace(store, WS);
      await loadEntries(store, WS, 'main', 'notes', base);
      let prev = 'main';
      for (let d = 1; d <= 32; d++) {
        await createBranch(store, WS, `d${d}`, prev);
        await loadEntries(store, WS, `d${d}`, 'notes', 1000);
        prev = `d${d}`;
      }
    });
    const iters = ctx.quick ? 100 : 1000;
    const kase = `show on a branch 32 ancestors deep (${label(base)} on main + 32×1k)`;
    const tip = { workspace: WS, branch: 'd32', doc: 'notes' };
    report(
      ctx,
      kase,
      'show newest 20 on tip',
      await measure(iters, () => show(store, { ...tip, limit: 20 })),
    );
    report(
      ctx,
      kase,
      'show 20 deep in main from tip',
      await measure(iters, (i) =>
        show(store, { ...tip, limit: 20, cursor: 100 + ((i * 7919) % (base - 100)) }),
      ),
    );
    report(
      ctx,
      kase,
      'show newest 20 on main',
      await measure(iters, () => show(store, { ...tip, branch: 'main', limit: 20 })),
    );
  } finally {
    await t.dispose();
  }
}

/** Both servers over stdio, grown in batches of 100 to `target` entities; per-batch create and search at checkpoints. */
async function versusReference(ctx: BenchContext): Promise<void> {
  const target = ctx.quick ? 2_000 : 50_000;
  const every = ctx.quick ? 1_000 : 10_000;
  const t = await openTestStore('sqlite');
  const noema = await noemaMcp(t.url);
  const ref = await referenceMemory();
  try {
    await noema.call('branchmind_init', { workspace: WS });
    const g = { workspace: WS, branch: 'main', doc: 'graph' };
    let refWindow: number[] = [];
    let noemaWindow: number[] = [];
    const time = async (c: Caller, name: string, args: Record<string, unknown>) => {
      const t0 = performance.now();
      await c.call(name, args);
      return performance.now() - t0;
    };
    for (let start = 0; start < target; start += 100) {
      const ids = Array.from({ length: 100 }, (_, j) => start + j);
      refWindow.push(
        await time(ref, 'create_entities', {
          entities: ids.map((i) => ({
            name: `entity-${i}`,
            entityType: 'concept',
            observations: [`observation about entity ${i}`],
          })),
        }),
      );
      noemaWindow.push(
        await time(noema, 'branchmind_graph_apply', {
          ...g,
          ops: ids.map((i) => ({
            op: 'node_upsert',
            id: `entity-${i}`,
            type: 'concept',
            text: `observation about entity ${i}`,
          })),
        }),
      );
      const size = start + 100;
      if (size % every !== 0) continue;
      const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
      const kase = `vs server-memory at ${label(size)} entities (MCP stdio)`;
      ctx.row({
        case: kase,
        metric: 'create 100 entities / graph_apply 100 upserts, mean of last 10 batches',
        unit: 'ms',
        value: mean(noemaWindow.slice(-10)),
        anchor: 'server-memory create_entities',
        anchor_value: mean(refWindow.slice(-10)),
      });
      const probe = `entity-${size - 50}`;
      const reps = 5;
      const rs: number[] = [];
      const first: number[] = [];
      const all: number[] = [];
      for (let r = 0; r < reps; r++) {
        rs.push(await time(ref, 'search_nodes', { query: probe }));
        first.push(await time(noema, 'branchmind_graph_query', { ...g, text: probe }));
        // The complete answer: follow has_more/next_cursor to the end (each call scans a bounded window).
        const t0 = performance.now();
        let cursor: number | undefined;
        for (;;) {
          const page = (await noema.call('branchmind_graph_query', {
            ...g,
            text: probe,
            ...(cursor ? { cursor } : {}),
          })) as {
            pagination: { has_more: boolean; next_cursor?: number };
          };
          if (!page.pagination.has_more || page.pagination.next_cursor === undefined) break;
          cursor = page.pagination.next_cursor;
        }
        all.push(performance.now() - t0);
      }
      const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
      for (const [what, xs] of [
        ['first page', first],
        ['every page to the end', all],
      ] as const) {
        ctx.row({
          case: kase,
          metric: `search "${probe}": graph_query text, ${what} (median of ${reps})`,
          unit: 'ms',
          value: median(xs),
          anchor: 'server-memory search_nodes',
          anchor_value: median(rs),
        });
      }
      ctx.log(
        `  ${kase}: create ${mean(noemaWindow.slice(-10)).toFixed(2)} ms vs ${mean(refWindow.slice(-10)).toFixed(2)} ms`,
      );
      refWindow = [];
      noemaWindow = [];
    }
  } finally {
    await ref.close();
    await noema.close();
    await t.dispose();
  }
}

export default {
  name: 'reasoning-memory',
  description:
    'notes/show/diff at 10k–1M entries, graph at 10k/100k nodes, 32-deep branch, vs @modelcontextprotocol/server-memory',
  async run(ctx) {
    // BENCH_SECTIONS=log,graph,graph-pg,deep,versus (default: all) runs a subset.
    const on = (s: string) =>
      (process.env.BENCH_SECTIONS ?? 'log,graph,graph-pg,deep,versus').split(',').includes(s);
    const sizes = ctx.quick
      ? [10_000]
      : (process.env.BENCH_LOG_SIZES ?? '10000,100000,1000000').split(',').map(Number);
    if (on('log')) for (const n of sizes) await logAtSize(ctx, n);
    if (on('graph')) for (const n of ctx.quick ? [10_000] : [10_000, 100_000]) await graphAtSize(ctx, n);
    if (on('graph-pg')) await graphAtSize(ctx, ctx.quick ? 10_000 : 100_000, 'postgres');
    if (on('deep')) await deepBranch(ctx);
    if (on('versus')) await versusReference(ctx);
  },
} satisfies Bench;
