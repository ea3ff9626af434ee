/**
 * A retryable store fault anywhere in a step — `ctx.perform`, `ctx.act`, a sources-backed action's
 * durable trace, a journaled retry, the suspending commit — leaves the run reclaimable, never
 * failed; another worker then finishes it without repeating a side effect that already happened.
 * The fault is injected at the store (FaultyStore), swept through every store call the run makes.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { NoemaError } from '../core/errors.ts';
import { incidentSink } from '../core/incident-log.ts';
import { putResponseSource } from '../sources/index.ts';
import { openStore, parseStoreTarget } from '../store/index.ts';
import { describeEachStore } from '../testing/each-store.ts';
import { humanNode } from '../testing/engine-kit.ts';
import { type FaultPlan, FaultyStore } from '../testing/faulty-store.ts';
import { sourcesExecutor } from './actions/sources-executor.ts';
import { createEngine } from './create-engine.ts';
import type { Engine, GraphSpec, Json, NodeType } from './engine.ts';

/** An HTTP service that counts, per token, how many times the side effect really happened. */
async function effectCounter() {
  const hits = new Map<string, number>();
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => {
      body += d;
    });
    req.on('end', () => {
      const { token } = JSON.parse(body) as { token: string };
      hits.set(token, (hits.get(token) ?? 0) + 1);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ done: token }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, hits, close: () => new Promise<void>((r) => server.close(() => r())) };
}

type Probe = { source_hash: string };
const call = (source_hash: string, token: string): Json => ({ source_hash, request: { token } });

/** Leaves one sources-backed contract for the next node to perform. */
const planNode: NodeType<Probe> = {
  type: 'fault_plan',
  execute: (ctx) => ({
    kind: 'ok',
    contracts: [{ action_type: 'http_call', payload: call(ctx.config.source_hash, `${ctx.run_id}:perform`) }],
  }),
};

/** Performs the pending contract, acts once per attempt, and asks for a second generation once. */
const workNode: NodeType<Probe> = {
  type: 'fault_work',
  async execute(ctx) {
    for (const c of ctx.pending_executions) await ctx.perform(c.contract_id);
    const acted = await ctx.act(
      'http_call',
      call(ctx.config.source_hash, `${ctx.run_id}:act:${ctx.attempt}`),
    );
    if (ctx.attempt === 1) return { kind: 'retry_generation', error: 'first draft', corrective: 'again' };
    return { kind: 'ok', writes: { acted: acted.status } };
  },
};

/** Catches what `ctx.act` throws and reports success anyway, as a careless node would. */
const swallowNode: NodeType<Probe> = {
  type: 'fault_swallow',
  async execute(ctx) {
    try {
      await ctx.act('http_call', call(ctx.config.source_hash, `${ctx.run_id}:swallow`));
    } catch {
      // deliberately ignored
    }
    return { kind: 'ok' };
  },
};

function probeGraph(source_hash: string): GraphSpec {
  const config = { source_hash };
  return {
    entry: 'plan',
    channels: { acted: { reducer: 'value' }, messages: { reducer: 'append' } },
    nodes: [
      { id: 'plan', type: 'fault_plan', config },
      { id: 'work', type: 'fault_work', config, max_generation_attempts: 2 },
      { id: 'swallow', type: 'fault_swallow', config },
      { id: 'ask', type: 'human' },
      { id: 'end', type: 'terminal' },
    ],
    connectors: [
      { from: 'plan', to: 'work' },
      { from: 'work', to: 'swallow' },
      { from: 'swallow', to: 'ask' },
      { from: 'ask', to: 'end' },
    ],
  };
}

/** Claims and continues the run, waiting (bounded) for a lease another worker still holds to expire. */
async function reclaim(engine: Engine, run_id: string) {
  const until = Date.now() + 5000;
  for (;;) {
    const out = await engine.continueRun(run_id);
    if (out.status !== 'running' || Date.now() > until) return out;
    await new Promise((r) => setTimeout(r, 50));
  }
}

function register(engine: Engine): Engine {
  for (const t of [planNode, workNode, swallowNode, humanNode]) engine.register(t as NodeType<never>);
  return engine;
}

describeEachStore('engine under store faults', (factory) => {
  // About 200 faulted runs, each finished by another worker: longer than the default per-test timeout.
  test('a fault at any store call of a step leaves the run reclaimable; another worker finishes it, no side effect twice', {
    timeout: 300_000,
  }, async () => {
    const ts = await factory.open();
    const effects = await effectCounter();
    const otherStore = await openStore(parseStoreTarget(ts.url));
    const env = { NOEMA_FAULT_TOY_URL: effects.url };
    const faulty = new FaultyStore(ts.store);
    const a = register(
      // A short lease: after a fault whose write did commit (a claim), the run waits for it to expire.
      createEngine(faulty, { owner: 'worker-a', leaseMs: 300, actions: sourcesExecutor(faulty, { env }) }),
    );
    const b = register(
      createEngine(otherStore, { owner: 'worker-b', actions: sourcesExecutor(otherStore, { env }) }),
    );
    try {
      const source = await putResponseSource(ts.store, {
        version: 1,
        interface: {
          name: 'http_json',
          method: 'POST',
          url_env: 'NOEMA_FAULT_TOY_URL',
          path: '/act',
          timeout_ms: 5000,
        },
      });
      const graph = probeGraph(source.hash);

      // Fault-free passes count the store calls worker A makes from claim to suspension (the second
      // one, once the process lease is registered and the graph cached, as in every later run).
      let counted = { transactions: 0, statements: 0 };
      for (let i = 0; i < 2; i++) {
        const clean = await b.createRun(graph);
        faulty.arm(null);
        const out = await a.continueRun(clean.run_id);
        assert.equal(out.status, 'waiting', JSON.stringify(out.error));
        counted = { ...faulty.counts };
      }
      const { transactions, statements } = counted;
      assert.ok(
        transactions >= 8 && statements >= transactions,
        `counted ${transactions} tx, ${statements} statements`,
      );

      const plans: FaultPlan[] = [];
      for (let n = 1; n <= transactions; n++)
        plans.push(
          { transaction: n, at: 'commit' },
          { transaction: n, at: 'begin' },
          { transaction: n, at: 'after-commit' },
        );
      for (let n = 1; n <= statements; n++) plans.push({ statement: n });
      for (const plan of plans) {
        const label = JSON.stringify(plan);
        const { run_id } = await b.createRun(graph);
        faulty.arm(plan);
        const attempt = await a.continueRun(run_id).then(
          (out) => ({ out, err: null }),
          (err: unknown) => ({ out: null, err: err as { code?: string } }),
        );
        faulty.disarm();
        // A periodic lease refresh can shift the count by a statement or two; the tail may then miss.
        const missed = plan.statement !== undefined && plan.statement > faulty.counts.statements;
        assert.equal(faulty.injected.length, missed ? 0 : 1, `${label}: the fault was injected`);
        if (attempt.err)
          assert.equal(attempt.err.code, 'STORE_UNAVAILABLE', `${label}: ${String(attempt.err)}`);
        else assert.equal(attempt.out?.status, 'waiting', `${label}: ${JSON.stringify(attempt.out?.error)}`);
        const left = await b.getRun(run_id);
        assert.ok(
          ['queued', 'running', 'waiting'].includes(left.status),
          `${label} (${faulty.injected[0]}): run left ${left.status} ${JSON.stringify(left.error)}`,
        );

        // Worker B reclaims (at once if A gave its lease up, else once it expires) and carries the run on.
        let out = left.status === 'waiting' ? null : await reclaim(b, run_id);
        if (out) assert.equal(out.status, 'waiting', `${label}: worker B ${JSON.stringify(out.error)}`);
        const waiting = (await b.getRun(run_id)).contracts.find((c) => c.status === 'WAITING');
        assert.ok(waiting, `${label}: a form waits`);
        out = await b.resume(run_id, waiting.contract_id, { approved: true });
        assert.equal(out.status, 'completed', `${label}: ${JSON.stringify(out.error)}`);

        for (const suffix of ['perform', 'act:1', 'act:2', 'swallow']) {
          const n = effects.hits.get(`${run_id}:${suffix}`) ?? 0;
          assert.ok(n <= 1, `${label} (${faulty.injected[0]}): side effect ${suffix} happened ${n} times`);
        }
        const running = await ts.store.all(
          "SELECT source_invocation_id FROM source_invocations WHERE run_id = ? AND status = 'running'",
          [run_id],
        );
        assert.deepEqual(running, [], `${label}: no invocation is left running`);
        // A call whose result write hit the fault was written again, not recorded as an internal failure;
        // nor was a call that succeeded reported interrupted because its first write did commit.
        const lost = await ts.store.all(
          "SELECT source_invocation_id FROM source_invocations WHERE run_id = ? AND failure_message LIKE 'recording the source result failed%'",
          [run_id],
        );
        assert.deepEqual(lost, [], `${label} (${faulty.injected[0]}): a call's result was lost`);
        // A call that succeeded has its result in its contract: no passing fault turned it into a failure.
        const succeeded = await ts.store.all<{ contract_id: string }>(
          "SELECT contract_id FROM source_invocations WHERE run_id = ? AND status = 'succeeded'",
          [run_id],
        );
        const contracts = (await b.getRun(run_id)).contracts;
        for (const { contract_id } of succeeded) {
          const c = contracts.find((x) => x.contract_id === contract_id);
          assert.equal(c?.status, 'COMPLETED', `${label} (${faulty.injected[0]}): ${c?.error_message}`);
        }
        // No recovery ran here: a call reported interrupted would be a success misread as lost.
        const misread = (await b.getRun(run_id)).contracts.filter((c) =>
          /marked interrupted before it finished/.test(c.error_message ?? ''),
        );
        assert.deepEqual(
          misread,
          [],
          `${label} (${faulty.injected[0]}): a recorded success was reported interrupted`,
        );
      }

      // Resuming (answering the form, then running to the end) under the same sweep.
      const waitingRun = async () => {
        const { run_id } = await b.createRun(graph);
        assert.equal((await b.continueRun(run_id)).status, 'waiting');
        const form = (await b.getRun(run_id)).contracts.find((c) => c.status === 'WAITING');
        return { run_id, contract_id: form!.contract_id };
      };
      const counting = await waitingRun();
      faulty.arm(null);
      assert.equal(
        (await a.resume(counting.run_id, counting.contract_id, { approved: true })).status,
        'completed',
      );
      const resumeCalls = { ...faulty.counts };
      const resumePlans: FaultPlan[] = [];
      for (let n = 1; n <= resumeCalls.transactions; n++)
        resumePlans.push({ transaction: n, at: 'commit' }, { transaction: n, at: 'after-commit' });
      for (let n = 1; n <= resumeCalls.statements; n++) resumePlans.push({ statement: n });
      for (const plan of resumePlans) {
        const label = `resume ${JSON.stringify(plan)}`;
        const { run_id, contract_id } = await waitingRun();
        faulty.arm(plan);
        await a.resume(run_id, contract_id, { approved: true }).then(
          (out) => assert.equal(out.status, 'completed', `${label}: ${JSON.stringify(out.error)}`),
          (err: { code?: string }) => assert.equal(err.code, 'STORE_UNAVAILABLE', `${label}: ${String(err)}`),
        );
        faulty.disarm();
        const left = await b.getRun(run_id);
        assert.ok(
          left.status !== 'failed',
          `${label} (${faulty.injected[0]}): ${JSON.stringify(left.error)}`,
        );
        // Either the answer was rolled back (answer again) or it committed (any worker finishes the run).
        const stillWaiting = left.contracts.some((c) => c.status === 'WAITING');
        const out = stillWaiting
          ? await b.resume(run_id, contract_id, { approved: true })
          : await reclaim(b, run_id);
        assert.equal(out.status, 'completed', `${label}: ${JSON.stringify(out.error)}`);
      }
    } finally {
      await a.close();
      await b.close();
      await otherStore.close();
      await effects.close();
      await ts.dispose();
    }
  });
});

describeEachStore('engine heartbeat failures', (factory) => {
  test('a lease heartbeat that keeps failing is logged once with the run, and the run still completes', async () => {
    const ts = await factory.open();
    const faulty = new FaultyStore(ts.store);
    const lines: string[] = [];
    const write = incidentSink.write;
    incidentSink.write = (line) => void lines.push(line);
    try {
      const engine = createEngine(faulty, { leaseMs: 30 });
      engine.register({
        type: 'slow',
        execute: async () => {
          await new Promise((r) => setTimeout(r, 200));
          return { kind: 'ok' };
        },
      });
      const { run_id } = await engine.createRun({
        entry: 's',
        nodes: [
          { id: 's', type: 'slow' },
          { id: 'end', type: 'terminal' },
        ],
        connectors: [{ from: 's', to: 'end' }],
      });
      faulty.arm({ matching: /^UPDATE engine_runs SET lease_expires_at = \?/ });
      const out = await engine.continueRun(run_id);
      faulty.disarm();
      assert.equal(out.status, 'completed', JSON.stringify(out.error));
      assert.ok(faulty.injected.length >= 3, `the heartbeat failed ${faulty.injected.length} times`);
      const logged = lines.filter((l) => l.includes('lease heartbeat'));
      assert.equal(logged.length, 1, lines.join('\n'));
      assert.match(
        logged[0]!,
        new RegExp(`run ${run_id}: lease heartbeat failed \\(STORE_UNAVAILABLE: injected fault`),
      );
      await engine.close();
    } finally {
      incidentSink.write = write;
      await ts.dispose();
    }
  });
});

describeEachStore('which retryable errors leave a run reclaimable', (factory) => {
  test('a node’s own store write failing busy leaves the run running; a retryable error of something else fails the node', async () => {
    await factory.withStore(async ({ store }) => {
      const engine = createEngine(store);
      let busy = true;
      engine.register({
        type: 'writes_memory',
        execute() {
          // As a memory node writing through the store would see a long-held SQLite lock.
          if (busy) throw new NoemaError('STORE_BUSY', 'the database is busy', { retryable: true });
          return { kind: 'ok' };
        },
      });
      engine.register({
        type: 'calls_upstream',
        execute() {
          // Retryable for its caller, but not a store fault: reclaiming would fail the same way forever.
          throw new NoemaError('UPSTREAM_UNAVAILABLE', 'the upstream answered 503', { retryable: true });
        },
      });
      const graphOf = (type: string): GraphSpec => ({
        entry: 'n',
        nodes: [
          { id: 'n', type },
          { id: 'end', type: 'terminal' },
        ],
        connectors: [{ from: 'n', to: 'end' }],
      });
      const { run_id } = await engine.createRun(graphOf('writes_memory'));
      await assert.rejects(engine.continueRun(run_id), { code: 'STORE_BUSY' });
      assert.equal((await engine.getRun(run_id)).status, 'running');
      busy = false;
      assert.equal(
        (await engine.claimNext())?.status,
        'completed',
        'claimable at once: the lease was given up',
      );
      const out = await engine.start(graphOf('calls_upstream'));
      assert.equal(out.status, 'failed');
      assert.equal(out.error?.code, 'UPSTREAM_UNAVAILABLE');
    });
  });
});
