/**
 * How few commits a source-backed `ctx.act` takes, and which of them wait for the disk: the
 * contract is created with its RUNNING move and the invocation's running row (synchronous, before
 * the call), the finished row commits alone (deferred; one statement committed on its own where the
 * store can), the settle with the run's next commit, and
 * read documents are cached.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { putResponseSource } from '../../sources/index.ts';
import type { Store } from '../../store/store.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import { type RecordedTransaction, recordingTransactions } from '../../testing/recording-store.ts';
import { createEngine } from '../create-engine.ts';
import type { GraphSpec, Json, NodeType } from '../engine.ts';
import { sourcesExecutor } from './sources-executor.ts';

async function adder(): Promise<{ url: string; server: Server; seen: Array<() => Promise<void>> }> {
  const seen: Array<() => Promise<void>> = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => {
      body += d;
    });
    req.on('end', async () => {
      for (const check of seen) await check();
      const { a, b } = JSON.parse(body) as { a: number; b: number };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ sum: a + b }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, seen };
}

type Recorded = RecordedTransaction;

function recording(store: Store): { store: Store; txs: Recorded[]; reads: string[] } {
  const r = recordingTransactions(store);
  return { store: r.store, txs: r.recorded, reads: r.reads };
}

/** Two calls of the same source through `ctx.act`, in two steps. */
const twoActs: NodeType<{ source_hash: string }> = {
  type: 'two_acts',
  async execute(ctx) {
    const c = await ctx.act('tool_call', {
      source_hash: ctx.config.source_hash,
      request: { a: ctx.step, b: 1 },
    } as Json);
    return { kind: 'ok', writes: { sums: c.result }, route: ctx.step < 2 ? 'again' : 'done' };
  },
};

const graph = (source_hash: string): GraphSpec => ({
  entry: 'add',
  channels: { sums: { reducer: 'append' } },
  nodes: [
    { id: 'add', type: 'two_acts', config: { source_hash } },
    { id: 'end', type: 'terminal' },
  ],
  connectors: [
    { from: 'add', to: 'add', route: 'again' },
    { from: 'add', to: 'end', route: 'done' },
  ],
});

describeEachStore('source-backed ctx.act: commits', (factory) => {
  test('ctx.act creates the contract in the commit of its RUNNING move and running row, durable before the call', async () => {
    const { store: raw, dispose } = await factory.open();
    const { url, server, seen } = await adder();
    try {
      const source = await putResponseSource(raw, {
        version: 1,
        label: 'adder',
        interface: {
          name: 'http_json',
          method: 'POST',
          url_env: 'ADDER_URL',
          path: '/add',
          timeout_ms: 5000,
        },
      });
      const atRequest: string[] = [];
      seen.push(async () => {
        const rows = await raw.all<{ status: string }>('SELECT status FROM engine_contracts');
        atRequest.push(rows.map((r) => r.status).join(','));
      });
      const { store, txs } = recording(raw);
      const engine = createEngine(store, { actions: sourcesExecutor(store, { env: { ADDER_URL: url } }) });
      engine.register(twoActs as NodeType<never>);
      const out = await engine.start(graph(source.hash));
      assert.equal(out.status, 'completed');
      assert.deepEqual(
        atRequest,
        ['RUNNING', 'COMPLETED,RUNNING'],
        'each contract is committed RUNNING before its request',
      );
      const has = (r: Recorded, re: RegExp) => r.sqls.some((q) => re.test(q));
      const inserts = txs.filter((t) => has(t, /^INSERT INTO engine_contracts/));
      assert.equal(inserts.length, 2, 'one insert per act');
      for (const t of inserts)
        assert.ok(has(t, /^INSERT INTO source_invocations/), 'inserted with the running row');
      const c = (await engine.getRun(out.run_id)).completed_executions[0]!;
      assert.deepEqual(
        c.transitions.map((t) => `${t.from}>${t.to}@${t.actor}`),
        ['null>PENDING@node:add', 'PENDING>RUNNING@node:add', 'RUNNING>COMPLETED@executor'],
      );
      // Durability: what precedes a call or ends the run waits for the disk; the rest need not.
      for (const t of txs.filter((t) => has(t, /^INSERT INTO source_invocations/))) {
        assert.equal(t.durability, 'immediate', 'the running commit is synchronous');
        // Without a promise where the store can (the engine's RUNNING move joins it there too),
        // unless the process's lease row needs writing first (the process's first call).
        const touches = has(t, /^INSERT INTO source_processes/);
        assert.equal(t.via, raw.transactionSync && !touches ? 'transactionSync' : 'transaction');
      }
      const finishes = txs.filter((t) => has(t, /^UPDATE source_invocations SET status/));
      assert.equal(finishes.length, 2);
      for (const t of finishes) {
        assert.equal(t.durability, 'deferred', 'the finished row commits deferred');
        // Alone: the settle rides on the run's next commit, so the row is finished as without the
        // engine — one statement committed on its own (no BEGIN/COMMIT): synchronously, or in one round trip.
        assert.deepEqual(
          { sqls: t.sqls.length, via: t.via },
          { sqls: 1, via: raw.runSync ? 'runSync' : raw.runAlone ? 'runAlone' : 'transaction' },
        );
      }
      // A step commit carries the settle of the contract its node performed (UPDATE engine_contracts).
      const steps = txs.filter(
        (t) =>
          has(t, /^INSERT INTO engine_journal/) && !has(t, /source_invocations|INSERT INTO engine_contracts/),
      );
      for (const t of steps)
        assert.ok(has(t, /^UPDATE engine_contracts/), "the step commits its act's settle");
      assert.equal(steps.length, 2);
      assert.equal(steps[0]!.durability, 'deferred', 'a step leaving the run running is deferred');
      assert.equal(steps[1]!.durability, 'immediate', 'the step that completes the run is synchronous');
    } finally {
      server.close();
      await dispose();
    }
  });

  test('the executor reads a response source once, however many contracts name it', async () => {
    const { store: raw, dispose } = await factory.open();
    const { url, server } = await adder();
    try {
      const source = await putResponseSource(raw, {
        version: 1,
        label: 'adder',
        interface: {
          name: 'http_json',
          method: 'POST',
          url_env: 'ADDER_URL',
          path: '/add',
          timeout_ms: 5000,
        },
      });
      const { store, reads } = recording(raw);
      const engine = createEngine(store, { actions: sourcesExecutor(store, { env: { ADDER_URL: url } }) });
      engine.register(twoActs as NodeType<never>);
      const out = await engine.start(graph(source.hash));
      assert.equal(out.status, 'completed');
      assert.equal(reads.filter((q) => q.includes('FROM response_sources')).length, 1);
    } finally {
      server.close();
      await dispose();
    }
  });
});
