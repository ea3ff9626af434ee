import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachStore } from '../testing/each-store.ts';
import { CountingExecutor, flakyModelNode, registerKit, toolLoopGraph } from '../testing/engine-kit.ts';
import { createEngine } from './create-engine.ts';
import type { EngineEvent, GraphSpec, Json } from './engine.ts';

describeEachStore('engine runs', (factory) => {
  test('connector modes: only solid triggers; dotted feeds context, dashed feeds attachments (seed 003 names)', async () => {
    const { store, dispose } = await factory.open();
    try {
      const engine = createEngine(store);
      registerKit(engine);
      const graph: GraphSpec = {
        entry: 'a',
        channels: { messages: { reducer: 'append' } },
        nodes: [
          {
            id: 'a',
            type: 'append',
            config: { text: 'a', output: 'from a', attachments: [{ ref: 'att-a' }] },
          },
          {
            id: 'b',
            type: 'append',
            config: { text: 'b', output: 'from b', attachments: [{ ref: 'att-b' }] },
          },
          { id: 'ctx', type: 'context' },
          { id: 'never', type: 'append', config: { text: 'never' } },
          { id: 'end', type: 'terminal' },
        ],
        connectors: [
          { from: 'a', to: 'b' },
          { id: 'dot', from: 'a', to: 'ctx', mode: 'dotted' },
          { id: 'dash', from: 'a', to: 'ctx', mode: 'dashed' },
          { id: 'solid', from: 'b', to: 'ctx' },
          { from: 'a', to: 'never', mode: 'dotted' },
          { from: 'ctx', to: 'end' },
        ],
      };
      const out = await engine.start(graph);
      assert.equal(out.status, 'completed');
      const run = await engine.getRun(out.run_id);
      assert.deepEqual(run.state.messages, ['a', 'b']);
      assert.deepEqual(run.outputs.ctx, {
        upstream_nodes: [{ node_id: 'b', connector_id: 'solid', output: 'from b' }],
        context_only_upstream_nodes: [{ node_id: 'a', connector_id: 'dot', output: 'from a' }],
        attachment_only_upstream_nodes: [
          { node_id: 'a', connector_id: 'dash', attachments: [{ ref: 'att-a' }] },
        ],
        propagated_attachments: [{ ref: 'att-a' }, { ref: 'att-b' }],
      });
      assert.equal(run.outputs.never, undefined, 'a dotted connector does not trigger');
    } finally {
      await dispose();
    }
  });

  test('routing: the route a node returns selects its outgoing connector; an unknown route fails the run', async () => {
    const { store, dispose } = await factory.open();
    try {
      const engine = createEngine(store);
      registerKit(engine);
      const graph = (route: string): GraphSpec => ({
        entry: 'pick',
        channels: { messages: { reducer: 'append' } },
        nodes: [
          { id: 'pick', type: 'append', config: { text: 'pick', route } },
          { id: 'left', type: 'append', config: { text: 'left' } },
          { id: 'right', type: 'append', config: { text: 'right' } },
          { id: 'end', type: 'terminal' },
        ],
        connectors: [
          { from: 'pick', to: 'left', route: 'l' },
          { from: 'pick', to: 'right', route: 'r' },
          { from: 'left', to: 'end' },
          { from: 'right', to: 'end' },
        ],
      });
      const right = await engine.start(graph('r'));
      assert.deepEqual((await engine.getRun(right.run_id)).state.messages, ['pick', 'right']);
      const bad = await engine.start(graph('nowhere'));
      assert.equal(bad.status, 'failed');
      assert.equal(bad.error?.code, 'ROUTE_UNKNOWN');
    } finally {
      await dispose();
    }
  });

  test('loops run until the node routes out, and the state rebuilt from journal + snapshots equals the live one', async () => {
    const { store, dispose } = await factory.open();
    try {
      const engine = createEngine(store, { snapshotEvery: 7 });
      registerKit(engine);
      const graph: GraphSpec = {
        entry: 'count',
        channels: { count: { reducer: 'value', default: 0 } },
        nodes: [
          { id: 'count', type: 'counter', config: { limit: 25 } },
          { id: 'end', type: 'terminal' },
        ],
        connectors: [
          { from: 'count', to: 'count', route: 'again' },
          { from: 'count', to: 'end', route: 'done' },
        ],
      };
      const out = await engine.start(graph);
      assert.equal(out.status, 'completed');
      assert.equal(out.step, 25);
      const fresh = createEngine(store);
      registerKit(fresh);
      const run = await fresh.getRun(out.run_id);
      assert.equal(run.state.count, 25);
      assert.equal(run.step, 25);
      const snaps = await store.all('SELECT seq FROM engine_snapshots');
      assert.equal(snaps.length, 3, 'a snapshot every 7 steps');
      const rows = await store.all<{ body: string }>('SELECT body FROM engine_journal ORDER BY jid');
      assert.equal(rows.length, 25, 'one journal row per step');
      // [node `count`, writes [channel `count`, 4], route `again`] by index in the graph (journal/codec.ts).
      assert.deepEqual(JSON.parse(rows[3]!.body), [0, [0, 4], 0], 'a row holds only the delta');
    } finally {
      await dispose();
    }
  });

  test('a loop without an exit fails with STEP_LIMIT at max_steps', async () => {
    const { store, dispose } = await factory.open();
    try {
      const engine = createEngine(store);
      registerKit(engine);
      const out = await engine.start({
        entry: 'a',
        max_steps: 5,
        channels: { messages: { reducer: 'append' } },
        nodes: [
          { id: 'a', type: 'append' },
          { id: 'end', type: 'terminal' },
        ],
        connectors: [
          { from: 'a', to: 'a', route: 'loop' },
          { from: 'a', to: 'end', route: 'exit' },
        ],
      });
      assert.equal(out.status, 'failed');
      // The append node returns no route, so no connector fires: the run dead-ends after one step.
      assert.equal(out.error?.code, 'DEAD_END');
      const forever = await engine.start({
        entry: 'a',
        max_steps: 5,
        channels: { messages: { reducer: 'append' } },
        nodes: [
          { id: 'a', type: 'append' },
          { id: 'end', type: 'terminal' },
        ],
        connectors: [
          { from: 'a', to: 'a' },
          { from: 'a', to: 'end', route: 'exit' },
        ],
      });
      assert.equal(forever.error?.code, 'STEP_LIMIT');
      assert.equal(forever.step, 5);
    } finally {
      await dispose();
    }
  });

  test('a tool contract moves PENDING → RUNNING → COMPLETED through the executor, and reason reads contract.status', async () => {
    const { store, dispose } = await factory.open();
    try {
      const actions = new CountingExecutor();
      const engine = createEngine(store, { actions });
      registerKit(engine);
      const events: EngineEvent[] = [];
      const out = await engine.start(toolLoopGraph);
      assert.equal(out.status, 'completed');
      const run = await engine.getRun(out.run_id);
      assert.equal(actions.calls.length, 1);
      const [c] = run.completed_executions;
      assert.equal(c?.status, 'COMPLETED');
      assert.equal(c?.result, 5);
      assert.equal(c?.observation, '5');
      assert.deepEqual(
        c?.transitions.map((t) => [t.from, t.to, t.actor]),
        [
          [null, 'PENDING', 'node:reason'],
          ['PENDING', 'RUNNING', 'node:tool'],
          ['RUNNING', 'COMPLETED', 'executor'],
        ],
      );
      assert.deepEqual(run.pending_executions, []);
      assert.deepEqual(run.state.messages, ['COMPLETED:5']);
      void events;
    } finally {
      await dispose();
    }
  });

  test('a failing tool moves the contract to FAILED with error_message and an observation', async () => {
    const { store, dispose } = await factory.open();
    try {
      const engine = createEngine(store, { actions: new CountingExecutor({ fail: () => true }) });
      registerKit(engine);
      const out = await engine.start(toolLoopGraph);
      const run = await engine.getRun(out.run_id);
      const [c] = run.completed_executions;
      assert.equal(c?.status, 'FAILED');
      assert.equal(c?.error_message, 'tool exploded');
      // The same failure as data, read back from the store: no one parses error_message.
      assert.deepEqual(c?.error, {
        code: 'ACTION_FAILED',
        message: 'tool exploded',
        retryable: false,
        details: {},
      });
      assert.equal(c?.observation, 'Error: tool exploded');
      assert.deepEqual(run.state.messages, ['FAILED:null']);
    } finally {
      await dispose();
    }
  });

  test('retry: a model-content failure is retried on the same node with corrective context, each attempt journaled', async () => {
    const { store, dispose } = await factory.open();
    try {
      const engine = createEngine(store);
      registerKit(engine);
      const graph = (attempts: number): GraphSpec => ({
        entry: 'llm',
        nodes: [
          { id: 'llm', type: 'flaky_model', config: { succeed_on: 3 }, max_generation_attempts: attempts },
          { id: 'end', type: 'terminal' },
        ],
        connectors: [{ from: 'llm', to: 'end' }],
      });
      const ok = await engine.start(graph(3));
      assert.equal(ok.status, 'completed');
      assert.deepEqual((await engine.getRun(ok.run_id)).outputs.llm, {
        attempt: 3,
        corrective: [
          'attempt 1 was not JSON; reply with JSON only',
          'attempt 2 was not JSON; reply with JSON only',
        ],
      });
      const exhausted = await engine.start(graph(2));
      assert.equal(exhausted.status, 'failed');
      assert.equal(exhausted.error?.code, 'GENERATION_FAILED');
      const rows = await store.all<{ body: string }>('SELECT body FROM engine_journal ORDER BY jid');
      assert.equal(rows.filter((r) => JSON.parse(r.body).k === 'g').length, 4);
      void flakyModelNode;
    } finally {
      await dispose();
    }
  });

  test('events: node started/finished, contract transitioned, artifact persisted and run updated, in order', async () => {
    const { store, dispose } = await factory.open();
    try {
      const engine = createEngine(store, { actions: new CountingExecutor() });
      registerKit(engine);
      engine.register({
        type: 'artifacts',
        execute: () => ({
          kind: 'ok',
          artifacts: [{ artifact_type: 'note', payload: { text: 'hi' } as Json }],
        }),
      });
      const { run_id } = await engine.createRun({
        entry: 'r',
        channels: { messages: { reducer: 'append' } },
        nodes: [
          { id: 'r', type: 'reason' },
          { id: 't', type: 'tool' },
          { id: 'art', type: 'artifacts' },
          { id: 'end', type: 'terminal' },
        ],
        connectors: [
          { from: 'r', to: 't', route: 'act' },
          { from: 'r', to: 'art', route: 'done' },
          { from: 't', to: 'r' },
          { from: 'art', to: 'end' },
        ],
      });
      const seen: EngineEvent[] = [];
      const off = await engine.subscribe(run_id, (e) => seen.push(e));
      await engine.continueRun(run_id);
      await off();
      const types = seen.map((e) => e.type);
      assert.deepEqual(types.slice(0, 2), ['run.updated', 'node.started']);
      assert.ok(types.includes('node.finished'));
      assert.equal(seen.filter((e) => e.type === 'contract.transitioned').length, 3);
      assert.equal(types.filter((t) => t === 'artifact.persisted').length, 1);
      assert.equal(types.at(-1), 'run.updated');
      const last = seen.at(-1);
      assert.equal(last?.type === 'run.updated' && last.status, 'completed');
      const stored = await store.all<{ artifact_type: string }>('SELECT artifact_type FROM engine_artifacts');
      assert.deepEqual(
        stored.map((r) => r.artifact_type),
        ['note'],
      );
    } finally {
      await dispose();
    }
  });

  test('input writes to undeclared channels and invalid graphs are rejected before anything is stored', async () => {
    const { store, dispose } = await factory.open();
    try {
      const engine = createEngine(store);
      registerKit(engine);
      await assert.rejects(engine.createRun(toolLoopGraph, { input: { nope: 1 } }), {
        code: 'INVALID_INPUT',
      });
      await assert.rejects(engine.createRun({ entry: 'x', nodes: [], connectors: [] }), {
        code: 'GRAPH_INVALID',
      });
      assert.deepEqual(await store.all('SELECT run_id FROM engine_runs'), []);
      assert.deepEqual(await store.all('SELECT graph_hash FROM engine_graphs'), []);
    } finally {
      await dispose();
    }
  });
});
