import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachStore } from '../testing/each-store.ts';
import { createEngine } from './create-engine.ts';
import type { Engine, GraphSpec, NodeType, RunOutcome } from './engine.ts';

/** A node type that appends its name to `messages`. */
function typeNamed(type: string): NodeType<never> {
  return {
    type,
    execute: () => ({ kind: 'ok', writes: { messages: type } }),
  } as NodeType<never>;
}

/** entry → (each of `types` in a chain) → end. */
function chain(...types: string[]): GraphSpec {
  const nodes = types.map((type, i) => ({ id: `n${i}`, type }));
  return {
    entry: 'n0',
    channels: { messages: { reducer: 'append' } },
    nodes: [...nodes, { id: 'end', type: 'terminal' }],
    connectors: nodes.map((n, i) => ({ from: n.id, to: nodes[i + 1]?.id ?? 'end' })),
  };
}

async function drain(engine: Engine): Promise<RunOutcome[]> {
  const out: RunOutcome[] = [];
  for (;;) {
    const o = await engine.claimNext();
    if (!o) return out;
    out.push(o);
  }
}

describeEachStore('engine claims scoped to registered node types', (factory) => {
  test('two engines with different node types on one store never claim each other’s runs', async () => {
    await factory.withStore(async ({ store }) => {
      const alpha = createEngine(store, { fanOut: false });
      alpha.register(typeNamed('alpha'));
      const beta = createEngine(store, { fanOut: false });
      beta.register(typeNamed('beta'));
      const both = createEngine(store, { fanOut: false });
      both.register(typeNamed('alpha'));
      both.register(typeNamed('beta'));

      // Interleaved, so the oldest claimable run is always one the other engine cannot execute.
      const alphaRuns: string[] = [];
      const betaRuns: string[] = [];
      for (let i = 0; i < 3; i++) {
        betaRuns.push((await beta.createRun(chain('beta'))).run_id);
        alphaRuns.push((await alpha.createRun(chain('alpha', 'alpha'))).run_id);
      }
      const mixed = (await both.createRun(chain('alpha', 'beta'))).run_id;

      const byAlpha = await drain(alpha);
      assert.deepEqual(
        byAlpha.map((o) => o.run_id),
        alphaRuns,
      );
      assert.ok(byAlpha.every((o) => o.status === 'completed'));
      const byBeta = await drain(beta);
      assert.deepEqual(
        byBeta.map((o) => o.run_id),
        betaRuns,
      );
      assert.ok(byBeta.every((o) => o.status === 'completed'));

      // Neither took the run that needs both types: it is still queued, untouched.
      assert.equal((await alpha.getRun(mixed)).status, 'queued');
      const byBoth = await drain(both);
      assert.deepEqual(
        byBoth.map((o) => [o.run_id, o.status]),
        [[mixed, 'completed']],
      );
      const failed = await store.get<{ n: number }>(
        "SELECT COUNT(*) AS n FROM engine_runs WHERE status <> 'completed'",
      );
      assert.equal(Number(failed?.n), 0, 'no run failed with UNKNOWN_NODE_TYPE');
    });
  });

  test('an abandoned run (lease expired) is reclaimed only by an engine that has its node types', async () => {
    await factory.withStore(async ({ store }) => {
      const alpha = createEngine(store, { fanOut: false });
      alpha.register(typeNamed('alpha'));
      const beta = createEngine(store, { fanOut: false });
      beta.register(typeNamed('beta'));
      const { run_id } = await alpha.createRun(chain('alpha'));
      // A process claimed it and died: running, lease expired.
      await store.run(
        "UPDATE engine_runs SET status = 'running', lease_owner = 'dead', lease_expires_at = 1 WHERE run_id = ?",
        [run_id],
      );
      assert.equal(await beta.claimNext(), null);
      assert.equal((await alpha.getRun(run_id)).status, 'running');
      const out = await alpha.claimNext();
      assert.equal(out?.run_id, run_id);
      assert.equal(out?.status, 'completed');
    });
  });

  test('graphs stored before claims were scoped get their node types on the first claim', async () => {
    await factory.withStore(async ({ store }) => {
      const alpha = createEngine(store, { fanOut: false });
      alpha.register(typeNamed('alpha'));
      const { run_id, graph_hash } = await alpha.createRun(chain('alpha'));
      // As a graph stored by a Noema before migration 430: no type rows.
      await store.run('DELETE FROM engine_graph_types WHERE graph_hash = ?', [graph_hash]);

      const beta = createEngine(store, { fanOut: false });
      beta.register(typeNamed('beta'));
      assert.equal(await beta.claimNext(), null);
      const rows = await store.all<{ node_type: string }>(
        'SELECT node_type FROM engine_graph_types WHERE graph_hash = ? ORDER BY node_type',
        [graph_hash],
      );
      assert.deepEqual(
        rows.map((r) => r.node_type),
        ['alpha', 'terminal'],
      );
      assert.equal((await alpha.getRun(run_id)).status, 'queued');
      assert.equal((await alpha.claimNext())?.status, 'completed');
    });
  });

  test('a node type registered after the first claim widens what the engine claims', async () => {
    await factory.withStore(async ({ store }) => {
      const creator = createEngine(store, { fanOut: false });
      creator.register(typeNamed('gamma'));
      const { run_id } = await creator.createRun(chain('gamma'));
      const worker = createEngine(store, { fanOut: false });
      assert.equal(await worker.claimNext(), null);
      worker.register(typeNamed('gamma'));
      assert.equal((await worker.claimNext())?.run_id, run_id);
    });
  });
});
