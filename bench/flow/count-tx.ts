/**
 * `node bench/flow/count-tx.ts`: what one run of the flow bench's 20-node flowchart sends to the
 * store, on each selected store — commits (transactions, and statements committed on their own;
 * how many of them wait for the disk, i.e. are not `durability: 'deferred'`, which PostgreSQL flushes),
 * statements, and PostgreSQL round trips (BEGIN, each statement, COMMIT; a statement outside a
 * transaction is one) — beside the same source calls made with `invokeSource` alone.
 * BENCH_FLOW_TRACE=1 lists the run's transactions.
 */

import { uuidv7 } from '../../src/core/ids.ts';
import { createFlowchart, runFlowchart } from '../../src/runtimes/flow/index.ts';
import { invokeSource } from '../../src/sources/index.ts';
import type { Store } from '../../src/store/store.ts';
import { flowKit } from '../../src/testing/flow-kit.ts';
import { openTestStore, selectedStores } from '../../src/testing/stores.ts';
import { callsOf, SCRIPT, twentyNodes } from './graph.ts';

interface Counts {
  commits: number;
  /** Commits that wait for the disk (not `deferred`; an autocommit statement does). */
  synchronous: number;
  statements: number;
  roundTrips: number;
  lines: string[];
  /** Milliseconds spent in each statement's call, by its text. */
  times: Map<string, number>;
}

function counting(inner: Store): { store: Store; counts: Counts } {
  const counts: Counts = {
    commits: 0,
    synchronous: 0,
    statements: 0,
    roundTrips: 0,
    lines: [],
    times: new Map(),
  };
  const times = counts.times;
  const short = (sql: string) => sql.replace(/\s+/g, ' ').trim().slice(0, 70);
  const bind = (t: object, k: string | symbol) => {
    const v = Reflect.get(t, k);
    return typeof v === 'function' ? v.bind(t) : v;
  };
  // The time a statement's call takes in this process: SQLite's whole work, PostgreSQL's sending.
  const timed = <T>(sql: string, op: () => T): T => {
    const t0 = performance.now();
    try {
      return op();
    } finally {
      const k = short(sql);
      times.set(k, (times.get(k) ?? 0) + performance.now() - t0);
    }
  };
  const inTx = <T extends object>(tx: T, sqls: string[]): T =>
    new Proxy(tx, {
      get(t, k) {
        const v = bind(t, k);
        // Issued writes (`write`, `writeOne`, `writeReturning`) are statements too.
        if (k !== 'run' && k !== 'get' && k !== 'all' && !(typeof k === 'string' && k.startsWith('write')))
          return v;
        return (sql: string, ...rest: unknown[]) => {
          counts.statements++;
          counts.roundTrips++;
          sqls.push(short(sql));
          return timed(sql, () => v(sql, ...rest));
        };
      },
    });
  const open = (options?: unknown): string[] => {
    counts.commits++;
    if ((options as { durability?: string } | undefined)?.durability !== 'deferred') counts.synchronous++;
    counts.roundTrips += 2;
    return [];
  };
  const done = (via: string, sqls: string[]) => counts.lines.push(`${via}: ${sqls.join(' | ')}`);
  const store = new Proxy(inner, {
    get(target, key) {
      if (key === 'get' || key === 'all' || key === 'run')
        return (sql: string, params?: unknown) => {
          counts.statements++;
          counts.roundTrips++;
          if (key === 'run') {
            counts.commits++;
            counts.synchronous++;
          }
          counts.lines.push(`${key === 'run' ? 'auto' : 'read'}: ${short(sql)}`);
          return timed(sql, () => bind(target, key)(sql, params));
        };
      if (key === 'transaction')
        return (fn: (tx: object) => Promise<unknown>, options?: unknown) => {
          const sqls = open(options);
          return target
            .transaction((tx) => fn(inTx(tx, sqls)) as never, options as never)
            .finally(() => done('tx', sqls));
        };
      if (key === 'transactionSync' && target.transactionSync)
        return (fn: (tx: object) => unknown, options?: unknown) => {
          let sqls: string[] | null = null;
          try {
            return target.transactionSync!((tx) => {
              sqls = open(options);
              return fn(inTx(tx, sqls));
            }, options as never);
          } finally {
            if (sqls) done('txSync', sqls);
          }
        };
      if (key === 'runSync' && target.runSync)
        return (sql: string, params?: unknown, options?: unknown) => {
          const out = target.runSync!(sql, params as never, options as never);
          if (typeof out !== 'symbol') {
            counts.commits++;
            if ((options as { durability?: string } | undefined)?.durability !== 'deferred')
              counts.synchronous++;
            counts.statements++;
            counts.roundTrips++;
            counts.lines.push(`runSync: ${short(sql)}`);
          }
          return out;
        };
      if (key === 'runAlone' && 'runAlone' in target && typeof target.runAlone === 'function')
        // One statement committed on its own in one round trip (where the store offers it).
        return async (sql: string, params?: unknown, options?: unknown) => {
          counts.commits++;
          if ((options as { durability?: string } | undefined)?.durability !== 'deferred')
            counts.synchronous++;
          counts.statements++;
          counts.roundTrips++;
          counts.lines.push(`runAlone: ${short(sql)}`);
          return timed(sql, () => Reflect.apply(target.runAlone as never, target, [sql, params, options]));
        };
      return bind(target, key);
    },
  });
  return { store, counts };
}

const tracing = process.env.BENCH_FLOW_TRACE === '1';
for (const kind of selectedStores()) {
  const { store: raw, dispose } = await openTestStore(kind);
  const { store, counts } = counting(raw);
  const kit = await flowKit(store, SCRIPT, { fanOut: false });
  try {
    const fc = await createFlowchart(store, { name: 'bench', graph: twentyNodes() });
    let id = '';
    const snap = () => ({ ...counts, lines: counts.lines.length });
    let before = snap();
    for (let i = 0; i < Number(process.env.BENCH_FLOW_RUNS ?? 3); i++) {
      before = snap();
      const r = await runFlowchart(store, kit.engine, fc.flowchart_id, { input: { go: true } });
      if (r.outcome.status !== 'completed') throw new Error(`run ${r.outcome.status}`);
      id = r.flowchart_run_id;
    }
    const after = snap();
    const lines = counts.lines.slice(before.lines, after.lines);
    const calls = await callsOf(raw, id);
    const b2 = snap();
    const run_id = uuidv7();
    for (const { call } of calls) {
      const out = await invokeSource(store, { ...call, links: { ...call.links, run_id }, env: kit.env });
      if (!out.ok) throw new Error('replay failed');
    }
    const a2 = snap();
    const d = (
      a: Counts | ReturnType<typeof snap>,
      b: ReturnType<typeof snap>,
      k: 'commits' | 'synchronous' | 'statements' | 'roundTrips',
    ) => (a[k] as number) - (b[k] as number);
    console.log(
      `[${kind}] flowchart run: ${d(after, before, 'commits')} commits (${d(after, before, 'synchronous')} synchronous), ${d(after, before, 'statements')} statements, ` +
        `${d(after, before, 'roundTrips')} round trips (at most); its ${calls.length} calls alone: ` +
        `${d(a2, b2, 'commits')} commits (${d(a2, b2, 'synchronous')} synchronous), ${d(a2, b2, 'statements')} statements, ${d(a2, b2, 'roundTrips')} round trips`,
    );
    if (tracing) console.log(lines.join('\n'));
    if (process.env.BENCH_FLOW_TIMES === '1')
      for (const [sql, ms] of [...counts.times].sort((a, b) => b[1] - a[1]).slice(0, 25))
        console.log(`${ms.toFixed(1).padStart(8)} ms  ${sql}`);
  } finally {
    await kit.close();
    await dispose();
  }
}
