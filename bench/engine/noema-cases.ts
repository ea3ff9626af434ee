/**
 * Noema's side of the engine benchmark: the reason → tool → reason loop on durable SQLite, suspend
 * and cold resume, and the raw SQLite commit floor (node:sqlite, WAL, synchronous=NORMAL, one INSERT +
 * commit per step) measured in the same process.
 */
import { readFileSync, statSync } from 'node:fs';
import { migrations } from '../../src/app/migrations.ts';
import type { Engine, Json, NodeType } from '../../src/engine/index.ts';
import { createEngine } from '../../src/engine/index.ts';
import { openStore } from '../../src/store/open.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import type { Store } from '../../src/store/store.ts';
import { humanGraph, registerKit } from '../../src/testing/engine-kit.ts';
import { openTestStore, type StoreKind } from '../../src/testing/stores.ts';
import { floorDatabase, loopGraph } from './loop.ts';

export interface LoopFigures {
  /** Microseconds per super-step, in order. */
  steps: number[];
  /** Bytes the database grew by per step (after a WAL checkpoint). */
  bytesPerStep: number;
  /** Bytes this process handed to write(2)/pwrite(2) per step during the run (WAL frames, checkpoints). */
  writtenPerStep: number;
  /**
   * CPU microseconds per step of the whole process (user + system, every thread: a WAL checkpoint on
   * a worker thread counts) over the measured run and the full checkpoint after it.
   */
  cpuPerStepUs: number;
}

/** This process's CPU time so far, µs (user + system, all threads: getrusage(RUSAGE_SELF)). */
export function processCpuUs(): number {
  const c = process.cpuUsage();
  return c.user + c.system;
}

/** This process's `wchar` (bytes passed to write syscalls) from /proc/self/io; NaN where there is none. */
export function bytesWritten(): number {
  try {
    const m = /^wchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'));
    return m ? Number(m[1]) : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

export function message(size: number): string {
  return 'x'.repeat(size);
}

/** The loop's two node types, each stamping `stamps` with the time it runs. */
export function benchTypes(msg: string, stamps: bigint[]): NodeType<never>[] {
  const reason: NodeType<{ steps: number }> = {
    type: 'bench_reason',
    execute(ctx) {
      stamps.push(process.hrtime.bigint());
      if (ctx.step > ctx.config.steps) return { kind: 'ok', route: 'done' };
      return { kind: 'ok', writes: { messages: msg }, route: 'tool' };
    },
  };
  const tool: NodeType<null> = {
    type: 'bench_tool',
    execute() {
      stamps.push(process.hrtime.bigint());
      return { kind: 'ok', writes: { messages: msg } };
    },
  };
  return [reason, tool] as NodeType<never>[];
}

function dbBytes(store: Store, path: string): Promise<number> {
  return store.get('PRAGMA wal_checkpoint(TRUNCATE)').then(() => statSync(path).size);
}

/** The loop on SQLite (with bytes stored) or, for reference, on PostgreSQL (bytes not measured: NaN). */
export async function noemaLoop(
  size: number,
  steps: number,
  kind: StoreKind = 'sqlite',
  /** Steps of the warm-up run before the measured one. */
  warmup = 20,
): Promise<LoopFigures> {
  const t = await openTestStore(kind);
  const bytes = () => (kind === 'sqlite' ? dbBytes(t.store, t.url) : Promise.resolve(Number.NaN));
  try {
    const stamps: bigint[] = [];
    const engine = createEngine(t.store, { fanOut: false });
    for (const type of benchTypes(message(size), stamps)) engine.register(type);
    // A warm-up run so the first measured step does not pay for statement preparation.
    await engine.start(loopGraph(warmup));
    stamps.length = 0;
    const before = await bytes();
    const w0 = bytesWritten();
    const cpu0 = processCpuUs();
    const out = await engine.start(loopGraph(steps));
    if (out.status !== 'completed')
      throw new Error(`bench run ended ${out.status}: ${JSON.stringify(out.error)}`);
    // After the checkpoint: every side's figure includes copying its log into the database.
    const after = await bytes();
    const cpu1 = processCpuUs();
    const w1 = bytesWritten();
    const us = [];
    for (let i = 1; i <= steps; i++) us.push(Number(stamps[i]! - stamps[i - 1]!) / 1000);
    return {
      steps: us,
      bytesPerStep: (after - before) / steps,
      writtenPerStep: (w1 - w0) / steps,
      cpuPerStepUs: (cpu1 - cpu0) / steps,
    };
  } finally {
    await t.dispose();
  }
}

/** start → suspended (the run created, executed to the WAITING contract and persisted). */
export async function noemaSuspendResume(iterations: number): Promise<{
  suspendUs: number[];
  coldResumeUs: number[];
  openUs: number[];
  viaOpenStoreUs: number[];
}> {
  const t = await openTestStore('sqlite');
  try {
    const engine = createEngine(t.store, { fanOut: false });
    registerKit(engine);
    const waiting: Array<{ run_id: string; contract_id: string; viaOpenStore: boolean }> = [];
    const suspendUs: number[] = [];
    for (let i = 0; i < 2 * (iterations + 20); i++) {
      const t0 = process.hrtime.bigint();
      const out = await engine.start(humanGraph);
      const dt = Number(process.hrtime.bigint() - t0) / 1000;
      if (i >= 20 && i < iterations + 20) suspendUs.push(dt);
      // Odd runs are resumed the way a CLI process opens its store (openStore + migration check).
      waiting.push({
        run_id: out.run_id,
        contract_id: out.waiting[0]!.contract_id,
        viaOpenStore: i % 2 === 1,
      });
    }
    const coldResumeUs: number[] = [];
    const openUs: number[] = [];
    const viaOpenStoreUs: number[] = [];
    for (const [i, w] of waiting.entries()) {
      // Cold: a fresh store handle (new connection, empty statement cache) and a fresh engine.
      const t0 = process.hrtime.bigint();
      const store = w.viaOpenStore
        ? await openStore({ kind: 'sqlite', path: t.url }, { migrations })
        : new SqliteStore({ path: t.url });
      const fresh: Engine = createEngine(store, { fanOut: false });
      registerKit(fresh);
      const t1 = process.hrtime.bigint();
      const out = await fresh.resume(w.run_id, w.contract_id, { approved: true } as Json);
      const dt = Number(process.hrtime.bigint() - t0) / 1000;
      await store.close();
      if (out.status !== 'completed') throw new Error(`resume ended ${out.status}`);
      if (i < 40) continue;
      if (w.viaOpenStore) viaOpenStoreUs.push(dt);
      else {
        coldResumeUs.push(dt);
        openUs.push(Number(t1 - t0) / 1000);
      }
    }
    return { suspendUs, coldResumeUs, openUs, viaOpenStoreUs };
  } finally {
    await t.dispose();
  }
}

/** The hardware floor: one INSERT + COMMIT per step on node:sqlite with Noema's pragmas. */
export async function rawCommitFloor(size: number, steps: number, warmup = 20): Promise<LoopFigures> {
  const t = await openTestStore('sqlite', null);
  await t.store.close();
  const { db, step } = floorDatabase(t.url);
  try {
    const msg = message(size);
    const us: number[] = [];
    // The same warm-up as every other side: `warmup` steps (20 unless asked) before the measured ones.
    for (let i = 0; i < warmup; i++) step(msg);
    db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    const before = statSync(t.url).size;
    const w0 = bytesWritten();
    const cpu0 = processCpuUs();
    for (let i = 0; i < steps; i++) {
      const t0 = process.hrtime.bigint();
      step(msg);
      us.push(Number(process.hrtime.bigint() - t0) / 1000);
    }
    db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    const cpu1 = processCpuUs();
    const w1 = bytesWritten();
    return {
      cpuPerStepUs: (cpu1 - cpu0) / steps,
      steps: us,
      bytesPerStep: (statSync(t.url).size - before) / steps,
      writtenPerStep: (w1 - w0) / steps,
    };
  } finally {
    db.close();
    await t.dispose();
  }
}
