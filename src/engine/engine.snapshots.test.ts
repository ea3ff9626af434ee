/**
 * Snapshot replay: for graphs of value channels only (the ones snapshots apply to), the state
 * rebuilt from the latest snapshot plus the journal rows after it equals the live state at every
 * step, for any snapshot interval — and a run killed with SIGKILL resumes from it correctly.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describeEachStore } from '../testing/each-store.ts';
import { actValueLoopGraph, registerKit } from '../testing/engine-kit.ts';
import { testTempDir } from '../testing/temp-dir.ts';
import { waitUntil } from '../testing/wait.ts';
import { createEngine } from './create-engine.ts';
import type { Engine, GraphSpec, Json, NodeType } from './engine.ts';

const CHANNELS = ['a', 'b', 'c', 'd'] as const;

/** Channel values: scalars, small arrays and objects (no NUL: PostgreSQL TEXT refuses it). */
const value: fc.Arbitrary<Json> = fc.oneof(
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
  fc.string({ unit: 'grapheme-ascii', maxLength: 6 }),
  fc.array(fc.integer({ min: -5, max: 5 }), { maxLength: 3 }),
  fc.dictionary(fc.constantFrom('x', 'y', 'z'), fc.integer(), { maxKeys: 3, noNullPrototype: true }),
);

/** Per step, a write to some of the channels (possibly none). */
const script = fc.array(
  fc.dictionary(fc.constantFrom(...CHANNELS), value, { maxKeys: CHANNELS.length, noNullPrototype: true }),
  {
    minLength: 1,
    maxLength: 16,
  },
);

function scriptedGraph(writes: Array<Record<string, Json>>, defaults: Array<Json | undefined>): GraphSpec {
  const channels: NonNullable<GraphSpec['channels']> = {};
  CHANNELS.forEach((name, i) => {
    channels[name] =
      defaults[i] === undefined ? { reducer: 'value' } : { reducer: 'value', default: defaults[i] };
  });
  return {
    entry: 's',
    channels,
    nodes: [
      { id: 's', type: 'scripted_writer', config: { writes } },
      { id: 'end', type: 'terminal' },
    ],
    connectors: [
      { from: 's', to: 's', route: 'again' },
      { from: 's', to: 'end', route: 'done' },
    ],
  };
}

describeEachStore('engine snapshots', (factory) => {
  test('with value-only channels, the state rebuilt from snapshot + journal equals the live state at every step, for any interval', async () => {
    const { store, dispose } = await factory.open();
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.integer({ min: 1, max: 6 }),
          fc.integer({ min: 1, max: 6 }),
          script,
          fc.array(fc.option(value, { nil: undefined }), { minLength: 4, maxLength: 4 }),
          async (every, readerEvery, writes, defaults) => {
            // The reader rebuilds the run in the middle of it, as another process taking it over would.
            const reader: Engine = createEngine(store, { snapshotEvery: readerEvery });
            const mismatches: string[] = [];
            const writer: NodeType<{ writes: Array<Record<string, Json>> }> = {
              type: 'scripted_writer',
              async execute(ctx) {
                const rebuilt = await reader.getRun(ctx.run_id);
                if (rebuilt.step !== ctx.step - 1)
                  mismatches.push(`step ${ctx.step}: rebuilt step ${rebuilt.step}`);
                try {
                  assert.deepEqual(rebuilt.state, ctx.state);
                } catch {
                  mismatches.push(
                    `step ${ctx.step}: ${JSON.stringify(rebuilt.state)} != ${JSON.stringify(ctx.state)}`,
                  );
                }
                const w = ctx.config.writes[ctx.step - 1] ?? {};
                const last = ctx.step >= ctx.config.writes.length;
                return { kind: 'ok', writes: w, output: { step: ctx.step }, route: last ? 'done' : 'again' };
              },
            };
            const engine = createEngine(store, { snapshotEvery: every });
            engine.register(writer as NodeType<never>);
            reader.register(writer as NodeType<never>);
            const out = await engine.start(scriptedGraph(writes, defaults));
            assert.equal(out.status, 'completed', JSON.stringify(out.error));
            assert.deepEqual(mismatches, []);
            // The final state is the fold of every write over the defaults.
            const expected: Record<string, Json> = {};
            CHANNELS.forEach((name, i) => {
              expected[name] = defaults[i] ?? null;
            });
            for (const w of writes) Object.assign(expected, w);
            const final = await reader.getRun(out.run_id);
            assert.deepEqual(final.state, expected);
            assert.deepEqual(final.outputs.s, { step: writes.length });
            const snaps = await store.all<{ seq: number }>(
              'SELECT e.seq FROM engine_snapshots e JOIN engine_runs r ON r.run_pk = e.run_pk WHERE r.run_id = ?',
              [out.run_id],
            );
            assert.equal(snaps.length, Math.floor(writes.length / every), 'one snapshot per interval');
          },
        ),
        { numRuns: 25 },
      );
    } finally {
      await dispose();
    }
  });

  test('kill -9 with snapshots on: the next process resumes from the snapshot and no action runs twice', async () => {
    const { store, url, dispose } = await factory.open();
    const dir = testTempDir('noema-snapkill-');
    const worker = fileURLToPath(new URL('../testing/engine-worker.ts', import.meta.url));
    const env = {
      ...process.env,
      NOEMA_DB: url,
      ENGINE_LOG: join(dir, 'calls.log'),
      ENGINE_LEASE_MS: '300',
      ENGINE_IDLE_EXIT_MS: '1500',
      ENGINE_SNAPSHOT_EVERY: '3',
    };
    const start = () => {
      const child = spawn(process.execPath, [worker, 'drain'], { env, stdio: 'ignore' });
      return { child, exited: new Promise<number | null>((r) => child.on('exit', (code) => r(code))) };
    };
    try {
      const engine = createEngine(store);
      registerKit(engine);
      const limit = 14;
      const { run_id } = await engine.createRun(actValueLoopGraph(limit, 20));
      const snapshots = async () =>
        Number((await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM engine_snapshots'))?.n ?? 0);
      const steps = async () => (await engine.getRun(run_id)).step;
      // First kill once a snapshot exists and a step or two more were journaled after it.
      const first = start();
      await waitUntil(
        'a snapshot and steps after it',
        async () => (await snapshots()) >= 1 && (await steps()) % 3 !== 0,
        {
          timeoutMs: 20_000,
        },
      );
      first.child.kill('SIGKILL');
      await first.exited;
      const killedAt = await steps();
      assert.ok(killedAt < limit, `the kill landed mid-run (step ${killedAt})`);
      // A second process is killed as well, later, then a third finishes.
      const second = start();
      await waitUntil('progress in the second process', async () => (await steps()) > killedAt + 2, {
        timeoutMs: 20_000,
      });
      second.child.kill('SIGKILL');
      await second.exited;
      const last = start();
      assert.equal(await last.exited, 0);
      const run = await engine.getRun(run_id);
      assert.equal(run.status, 'completed', JSON.stringify(run.error));
      assert.equal(run.step, limit);
      assert.equal(run.state.count, limit, 'each step counted once across the kills');
      assert.deepEqual(run.outputs.act, { n: limit });
      assert.ok((await snapshots()) >= 3, 'snapshots were written along the way');
      assert.equal(run.contracts.length, limit, 'a re-executed step finds its journaled action');
      const calls = readFileSync(env.ENGINE_LOG, 'utf8').trim().split('\n');
      assert.equal(new Set(calls).size, calls.length, 'an action was executed twice');
      for (const c of run.contracts) {
        if (c.status === 'FAILED') assert.match(c.error_message ?? '', /interrupted/);
        else assert.equal(c.status, 'COMPLETED');
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
      await dispose();
    }
  });
});
