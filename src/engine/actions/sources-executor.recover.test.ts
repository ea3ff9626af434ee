/**
 * `sourcesExecutor.recover`: a contract left RUNNING by a process killed with SIGKILL after its
 * source invocation finished durably completes (or fails) with that recorded outcome on reclaim,
 * without calling the source again; a call still `running` when the process died stays unknown.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { listSourceInvocations, putResponseSource } from '../../sources/index.ts';
import type { Store } from '../../store/store.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import { FaultyStore } from '../../testing/faulty-store.ts';
import { sourceActNode } from '../../testing/sources-act-worker.ts';
import { createEngine } from '../create-engine.ts';
import type { Engine, GraphSpec, NodeType } from '../engine.ts';
import { sourcesExecutor } from './sources-executor.ts';

const WORKER = fileURLToPath(new URL('../../testing/sources-act-worker.ts', import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** `/add` answers the sum, `/broken` HTTP 500, `/hang` never answers; `requests` counts each path. */
async function adder(onRequest?: () => void): Promise<{ url: string; server: Server; requests: string[] }> {
  const requests: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => {
      body += d;
    });
    req.on('end', () => {
      requests.push(req.url ?? '');
      onRequest?.();
      if (req.url === '/hang') return;
      res.writeHead(req.url === '/add' ? 200 : 500, { 'content-type': 'application/json' });
      if (req.url === '/add') {
        const { a, b } = JSON.parse(body) as { a: number; b: number };
        res.end(JSON.stringify({ sum: a + b }));
      } else res.end(JSON.stringify({ error: 'jammed' }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server, requests };
}

async function sourceAt(store: Store, path: string): Promise<string> {
  const s = await putResponseSource(store, {
    version: 1,
    label: 'adder',
    interface: { name: 'http_json', method: 'POST', url_env: 'ADDER_URL', path, timeout_ms: 60_000 },
  });
  return s.hash;
}

function oneCall(source_hash: string): GraphSpec {
  return {
    entry: 'call',
    channels: { messages: { reducer: 'append' } },
    nodes: [
      { id: 'call', type: 'source_act', config: { source_hash, request: { a: 2, b: 3 } } },
      { id: 'end', type: 'terminal' },
    ],
    connectors: [{ from: 'call', to: 'end', route: 'done' }],
  };
}

/** Starts the worker on the queued run and SIGKILLs it once `ready` holds. */
async function killWorkerWhen(url: string, adderUrl: string, ready: (stdout: string) => boolean) {
  const child = spawn(process.execPath, [WORKER], {
    env: { ...process.env, NOEMA_DB: url, ADDER_URL: adderUrl, ENGINE_LEASE_MS: '300' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout.on('data', (d) => {
    out += String(d);
  });
  const exited = new Promise((r) => child.on('exit', r));
  const deadline = Date.now() + 20_000;
  while (!ready(out)) {
    assert.ok(Date.now() < deadline, 'the worker never reached the window');
    await sleep(20);
  }
  child.kill('SIGKILL');
  await exited;
}

async function claimSoon(engine: Engine) {
  // The dead worker's lease (300 ms) has to expire first.
  let out = await engine.claimNext();
  for (let i = 0; !out && i < 300; i++) {
    await sleep(20);
    out = await engine.claimNext();
  }
  return out;
}

describeEachStore('sources executor recovers a dead process’s finished calls', (factory) => {
  for (const [path, status] of [
    ['/add', 'COMPLETED'],
    ['/broken', 'FAILED'],
  ] as const) {
    test(`kill -9 after the invocation finished (${path}): the contract ends ${status} with the recorded outcome, the call is not repeated`, async () => {
      await factory.withStore(async ({ store, url }) => {
        const { url: adderUrl, server, requests } = await adder();
        try {
          const source_hash = await sourceAt(store, path);
          const engine = createEngine(store, {
            actions: sourcesExecutor(store, { env: { ADDER_URL: adderUrl } }),
          });
          engine.register(sourceActNode as NodeType<never>);
          const { run_id } = await engine.createRun(oneCall(source_hash));
          await killWorkerWhen(url, adderUrl, (out) => out.includes('finished'));
          const left = (await engine.getRun(run_id)).contracts[0]!;
          assert.equal(left.status, 'RUNNING', 'the worker died before the engine moved the contract');
          const [inv] = (await listSourceInvocations(store, { run_id })).items;
          assert.equal(inv?.status, status === 'COMPLETED' ? 'succeeded' : 'failed');

          assert.equal((await claimSoon(engine))?.status, 'completed');
          const c = (await engine.getRun(run_id)).contracts[0]!;
          assert.equal(c.status, status);
          assert.equal(c.transitions.at(-1)?.actor, 'recovery');
          if (status === 'COMPLETED') assert.deepEqual(c.result, { sum: 5 });
          else {
            assert.match(c.error_message ?? '', /^http_status: /);
            assert.equal(c.error?.code, 'SOURCE_FAILED');
            assert.equal(c.error?.details.failure_class, 'http_status');
          }
          assert.equal(requests.filter((r) => r === path).length, 1, 'the source was called once');
          assert.equal((await listSourceInvocations(store, { run_id })).items.length, 1);
        } finally {
          server.close();
        }
      });
    });
  }

  test('kill -9 while the call is in flight: the running invocation is unknown, the contract FAILED interrupted, not repeated', async () => {
    await factory.withStore(async ({ store, url }) => {
      const { url: adderUrl, server, requests } = await adder();
      try {
        const source_hash = await sourceAt(store, '/hang');
        const engine = createEngine(store, {
          actions: sourcesExecutor(store, { env: { ADDER_URL: adderUrl } }),
        });
        engine.register(sourceActNode as NodeType<never>);
        const { run_id } = await engine.createRun(oneCall(source_hash));
        await killWorkerWhen(url, adderUrl, () => requests.length > 0);
        assert.equal((await claimSoon(engine))?.status, 'completed');
        const c = (await engine.getRun(run_id)).contracts[0]!;
        assert.equal(c.status, 'FAILED');
        assert.equal(c.error?.code, 'ACTION_INTERRUPTED');
        assert.equal(requests.length, 1, 'the source was not called again');
      } finally {
        server.closeAllConnections();
        server.close();
      }
    });
  });
  test('an outage of contract writes at the joined finish: the row is finished alone, the contract left RUNNING completes through recover', async () => {
    await factory.withStore(async ({ store }) => {
      const faulty = new FaultyStore(store);
      // Every contract move fails once the call is made: the joined finish and the engine's own settle.
      const {
        url: adderUrl,
        server,
        requests,
      } = await adder(() => faulty.arm({ matching: /^UPDATE engine_contracts SET status = \?/ }));
      try {
        const source_hash = await sourceAt(store, '/add');
        const env = { ADDER_URL: adderUrl };
        const engine = createEngine(faulty, { leaseMs: 300, actions: sourcesExecutor(faulty, { env }) });
        engine.register(sourceActNode as NodeType<never>);
        const { run_id } = await engine.createRun(oneCall(source_hash));
        const first = await engine.continueRun(run_id).then(
          (out) => out.status,
          (err: { code?: string }) => err.code,
        );
        faulty.disarm();
        assert.ok(['STORE_UNAVAILABLE', 'running'].includes(String(first)), String(first));
        const left = (await engine.getRun(run_id)).contracts[0]!;
        assert.equal(left.status, 'RUNNING', 'the contract could not be settled');
        const [inv] = (await listSourceInvocations(store, { run_id })).items;
        assert.equal(inv?.status, 'succeeded', 'the call’s result was recorded on its own');

        const next = createEngine(store, { actions: sourcesExecutor(store, { env }) });
        next.register(sourceActNode as NodeType<never>);
        assert.equal((await claimSoon(next))?.status, 'completed');
        const c = (await next.getRun(run_id)).contracts[0]!;
        assert.equal(c.status, 'COMPLETED');
        assert.deepEqual(c.result, { sum: 5 });
        assert.equal(c.transitions.at(-1)?.actor, 'recovery');
        assert.equal(requests.length, 1, 'the source was called once');
      } finally {
        server.close();
      }
    });
  });
});
