import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NoemaError } from '../core/errors.ts';
import { describeEachStore } from '../testing/each-store.ts';
import { createEngine } from './create-engine.ts';
import type { EngineEvent, GraphSpec, Json, NodeType } from './engine.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// 3000 CJK characters: 3000 UTF-16 units but 9000 UTF-8 bytes, over PostgreSQL's 8000-byte NOTIFY cap.
const CJK = '漢'.repeat(3000);

const oneNode = (type: string): GraphSpec => ({
  entry: 'n',
  nodes: [
    { id: 'n', type },
    { id: 'end', type: 'terminal' },
  ],
  connectors: [{ from: 'n', to: 'end' }],
});

const bigTalker: NodeType<null> = {
  type: 'big_talker',
  execute(ctx) {
    ctx.update({ text: CJK });
    return { kind: 'ok', output: 'spoke', artifacts: [{ artifact_type: 'essay', payload: { text: CJK } }] };
  },
};

describeEachStore('engine failures', (factory) => {
  test('a node emitting a 3000-CJK-character update and artifact completes; other processes get the event abbreviated', async () => {
    const { store, url, dispose } = await factory.open();
    try {
      const runner = createEngine(store);
      runner.register(bigTalker);
      const { run_id } = await runner.createRun(oneNode('big_talker'));
      const local: EngineEvent[] = [];
      const offLocal = await runner.subscribe(run_id, (e) => local.push(e));
      const remote: Array<EngineEvent & { origin?: string }> = [];
      let closeRemote = async () => {};
      if (store.capabilities.supportsListenNotify) {
        const { openStore, parseStoreTarget } = await import('../store/index.ts');
        const other = await openStore(parseStoreTarget(url));
        const watcher = createEngine(other);
        const off = await watcher.subscribe(run_id, (e) => remote.push(e));
        closeRemote = async () => {
          await off();
          await watcher.close();
          await other.close();
        };
      }
      try {
        const out = await runner.continueRun(run_id);
        assert.equal(out.status, 'completed', JSON.stringify(out.error));
        assert.equal((await runner.getRun(run_id)).status, 'completed');
        const update = local.find((e) => e.type === 'node.updated');
        assert.deepEqual(
          update?.type === 'node.updated' && update.data,
          { text: CJK },
          'in-process events are whole',
        );
        if (store.capabilities.supportsListenNotify) {
          for (
            let i = 0;
            i < 100 && !remote.some((e) => e.type === 'run.updated' && e.status === 'completed');
            i++
          )
            await sleep(20);
          const u = remote.find((e) => e.type === 'node.updated');
          assert.ok(u?.type === 'node.updated', 'the update reached the other process');
          assert.equal(u.data, null);
          assert.equal(u.truncated, true);
          const a = remote.find((e) => e.type === 'artifact.persisted');
          assert.ok(a?.type === 'artifact.persisted', 'the artifact event reached the other process');
          assert.equal(a.artifact, null);
          assert.equal(a.truncated, true);
          const stored = await store.get<{ payload: string }>(
            'SELECT payload FROM engine_artifacts WHERE artifact_id = ?',
            [a.artifact_id],
          );
          assert.deepEqual(
            JSON.parse(stored!.payload),
            { text: CJK },
            'the artifact_id points at the whole body',
          );
        }
      } finally {
        await offLocal();
        await closeRemote();
      }
    } finally {
      await dispose();
    }
  });

  test('an unexpected error during a step fails the run with INTERNAL instead of leaving it running', async () => {
    const { store, dispose } = await factory.open();
    try {
      const engine = createEngine(store);
      // Not an Error, not a NoemaError: nothing in the node runner expects it.
      engine.register({
        type: 'throws_null',
        execute() {
          throw null;
        },
      });
      // A write JSON cannot encode breaks the step's commit, after the node itself succeeded.
      engine.register({
        type: 'bigint_writer',
        execute: () => ({ kind: 'ok', writes: { n: 1n as unknown as Json } }),
      });
      for (const [type, graph] of [
        ['throws_null', oneNode('throws_null')],
        ['bigint_writer', { ...oneNode('bigint_writer'), channels: { n: { reducer: 'value' } } }],
      ] as const) {
        const out = await engine.start(graph as GraphSpec);
        assert.equal(out.status, 'failed', type);
        assert.equal(out.error?.code, 'INTERNAL', type);
        assert.ok((out.error?.message ?? '').length > 0, type);
        const run = await engine.getRun(out.run_id);
        assert.equal(run.status, 'failed', `${type}: the stored run is not left running`);
        assert.equal(run.error?.code, 'INTERNAL');
        assert.equal(await engine.claimNext(), null, `${type}: nothing is left to reclaim`);
      }
    } finally {
      await dispose();
    }
  });

  test('a retryable error during a step (store unavailable) leaves the run running, to be reclaimed', async () => {
    const { store, dispose } = await factory.open();
    try {
      const engine = createEngine(store);
      let outage = true;
      // Serializing this value fails like an unreachable store would, until the outage ends.
      const flaky = {
        toJSON() {
          if (outage)
            throw new NoemaError('STORE_UNAVAILABLE', 'the store is unreachable', { retryable: true });
          return 'written';
        },
      };
      engine.register({
        type: 'outage_writer',
        execute: () => ({ kind: 'ok', writes: { n: flaky as unknown as Json } }),
      });
      const graph: GraphSpec = { ...oneNode('outage_writer'), channels: { n: { reducer: 'value' } } };
      const { run_id } = await engine.createRun(graph);
      await assert.rejects(engine.continueRun(run_id), { code: 'STORE_UNAVAILABLE' });
      assert.equal((await engine.getRun(run_id)).status, 'running', 'not failed by a passing outage');
      outage = false;
      await store.run('UPDATE engine_runs SET lease_expires_at = 0');
      const out = await engine.claimNext();
      assert.equal(out?.status, 'completed');
      assert.equal((await engine.getRun(run_id)).state.n, 'written');
    } finally {
      await dispose();
    }
  });
});
