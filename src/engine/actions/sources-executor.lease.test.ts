/**
 * A source-backed action's contract moves commit with the invocation's rows and write no journal row
 * of their own: the run's lease fences the contract write itself, so a process that lost the lease
 * neither starts a call nor settles one.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { putResponseSource } from '../../sources/index.ts';
import type { Store } from '../../store/store.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import { createEngine } from '../create-engine.ts';
import type { GraphSpec, Json, NodeType } from '../engine.ts';
import { sourcesExecutor } from './sources-executor.ts';

/** Adds; `onRequest` runs before it answers (the moment the call is made). */
async function adder(
  onRequest: () => Promise<void>,
): Promise<{ url: string; server: Server; calls: number[] }> {
  const calls: number[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => {
      body += d;
    });
    req.on('end', async () => {
      await onRequest();
      const { a, b } = JSON.parse(body) as { a: number; b: number };
      calls.push(a + b);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ sum: a + b }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, calls };
}

const steal = (store: Store) =>
  store.run("UPDATE engine_runs SET lease_owner = 'thief', lease_expires_at = ?", [Date.now() + 60_000]);

/** One `ctx.act`, after `before` (which may take the lease away). */
function actOnce(before: () => Promise<unknown>): NodeType<{ source_hash: string }> {
  return {
    type: 'act_once',
    async execute(ctx) {
      await before();
      const c = await ctx.act('tool_call', {
        source_hash: ctx.config.source_hash,
        request: { a: 1, b: 2 },
      } as Json);
      return { kind: 'ok', writes: { sums: c.result } };
    },
  };
}

const graph = (source_hash: string): GraphSpec => ({
  entry: 'add',
  channels: { sums: { reducer: 'append' } },
  nodes: [
    { id: 'add', type: 'act_once', config: { source_hash } },
    { id: 'end', type: 'terminal' },
  ],
  connectors: [{ from: 'add', to: 'end' }],
});

async function adderSource(store: Store) {
  return putResponseSource(store, {
    version: 1,
    label: 'adder',
    interface: { name: 'http_json', method: 'POST', url_env: 'ADDER_URL', path: '/add', timeout_ms: 5000 },
  });
}

describeEachStore('source-backed ctx.act: moves fenced by the lease', (factory) => {
  test('joined moves write no journal row; the contract keeps every transition', async () => {
    const { store, dispose } = await factory.open();
    const { url, server } = await adder(async () => {});
    try {
      const source = await adderSource(store);
      const engine = createEngine(store, { actions: sourcesExecutor(store, { env: { ADDER_URL: url } }) });
      engine.register(actOnce(async () => {}) as NodeType<never>);
      const out = await engine.start(graph(source.hash));
      assert.equal(out.status, 'completed');
      const rows = await store.all<{ body: string }>('SELECT body FROM engine_journal');
      assert.equal(rows.filter((r) => r.body.includes('"k":"t"')).length, 0, 'no transition row');
      const [c] = (await engine.getRun(out.run_id)).completed_executions;
      assert.deepEqual(
        c?.transitions.map((t) => `${t.from}>${t.to}`),
        ['null>PENDING', 'PENDING>RUNNING', 'RUNNING>COMPLETED'],
      );
    } finally {
      server.close();
      await dispose();
    }
  });

  test('a process that lost the lease creates no RUNNING contract and sends nothing', async () => {
    const { store, dispose } = await factory.open();
    const { url, server, calls } = await adder(async () => {});
    try {
      const source = await adderSource(store);
      const engine = createEngine(store, { actions: sourcesExecutor(store, { env: { ADDER_URL: url } }) });
      engine.register(actOnce(() => steal(store)) as NodeType<never>);
      const out = await engine.start(graph(source.hash));
      assert.equal(out.error?.code, 'LEASE_LOST');
      assert.deepEqual(calls, [], 'the request was never sent');
      const contracts = await store.all('SELECT contract_id FROM engine_contracts');
      assert.equal(contracts.length, 0, 'no contract row');
      const invocations = await store.all('SELECT source_invocation_id FROM source_invocations');
      assert.equal(invocations.length, 0, 'no running row left behind');
    } finally {
      server.close();
      await dispose();
    }
  });

  test('a later call, whose RUNNING commit needs no lease row (synchronous where the store can), is refused the same way', async () => {
    const { store, dispose } = await factory.open();
    const { url, server, calls } = await adder(async () => {});
    try {
      const source = await adderSource(store);
      const engine = createEngine(store, { actions: sourcesExecutor(store, { env: { ADDER_URL: url } }) });
      // The first act makes the process's lease row; the lease is stolen before the second.
      let acts = 0;
      const twoActs: NodeType<{ source_hash: string }> = {
        type: 'act_once',
        async execute(ctx) {
          const request = { a: acts, b: 2 };
          if (acts++ === 1) await steal(store);
          const c = await ctx.act('tool_call', { source_hash: ctx.config.source_hash, request } as Json, {
            key: `call:${acts}`,
          });
          return { kind: 'ok', writes: { sums: c.result } };
        },
      };
      engine.register(twoActs as NodeType<never>);
      const twice: GraphSpec = {
        ...graph(source.hash),
        nodes: [
          { id: 'add', type: 'act_once', config: { source_hash: source.hash } },
          { id: 'add2', type: 'act_once', config: { source_hash: source.hash } },
          { id: 'end', type: 'terminal' },
        ],
        connectors: [
          { from: 'add', to: 'add2' },
          { from: 'add2', to: 'end' },
        ],
      };
      const out = await engine.start(twice);
      assert.equal(out.error?.code, 'LEASE_LOST');
      assert.deepEqual(calls, [2], 'the second request was never sent');
      const contracts = await store.all('SELECT contract_id FROM engine_contracts');
      assert.equal(contracts.length, 1, 'no second contract row');
      const invocations = await store.all('SELECT source_invocation_id FROM source_invocations');
      assert.equal(invocations.length, 1, 'no second running row');
    } finally {
      server.close();
      await dispose();
    }
  });

  test('a call whose lease moved during it is recorded, but its contract is not settled', async () => {
    const { store, dispose } = await factory.open();
    const { url, server, calls } = await adder(async () => {
      await steal(store);
    });
    try {
      const source = await adderSource(store);
      const engine = createEngine(store, { actions: sourcesExecutor(store, { env: { ADDER_URL: url } }) });
      engine.register(actOnce(async () => {}) as NodeType<never>);
      const out = await engine.start(graph(source.hash));
      assert.equal(out.error?.code, 'LEASE_LOST');
      assert.deepEqual(calls, [3]);
      const contracts = await store.all<{ status: string }>('SELECT status FROM engine_contracts');
      assert.deepEqual(
        contracts.map((c) => c.status),
        ['RUNNING'],
        'left for the lease holder to recover',
      );
      const invocations = await store.all<{ status: string }>('SELECT status FROM source_invocations');
      assert.deepEqual(
        invocations.map((i) => i.status),
        ['succeeded'],
        'the invocation is finished alone',
      );
    } finally {
      server.close();
      await dispose();
    }
  });
});
