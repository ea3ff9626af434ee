/** The telemetry hooks hear the engine event types they declare; a run's subscribers still hear every type. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { installTelemetry } from '../core/telemetry.ts';
import { describeEachStore } from '../testing/each-store.ts';
import { CountingExecutor, registerKit } from '../testing/engine-kit.ts';
import { createEngine } from './create-engine.ts';
import type { EngineEvent, GraphSpec, NodeType } from './engine.ts';

/** Reports progress twice and performs one action: a run of it emits every kind of progress and commit event. */
const reportingNode: NodeType<null> = {
  type: 'reporting',
  async execute(ctx) {
    ctx.update({ at: 'start' });
    await ctx.act('tool_call', { tool: 'tick', n: 1 });
    ctx.update({ at: 'end' });
    return { kind: 'ok', writes: { messages: 'done' } };
  },
};

const graph: GraphSpec = {
  entry: 'report',
  channels: { messages: { reducer: 'append' } },
  nodes: [
    { id: 'report', type: 'reporting' },
    { id: 'end', type: 'terminal' },
  ],
  connectors: [{ from: 'report', to: 'end' }],
};

describeEachStore('engine events: the telemetry hooks’ declared types', (factory) => {
  test('hooks hear only the event types they declare, and a subscriber still hears every type', async () => {
    const { store, dispose } = await factory.open();
    const told: string[] = [];
    const previous = installTelemetry({
      engineEvent: (e) => void told.push(e.type),
      engineEventTypes: new Set(['node.finished', 'run.updated']),
    });
    try {
      const engine = createEngine(store, { actions: new CountingExecutor() });
      registerKit(engine);
      engine.register(reportingNode);

      const alone = await engine.createRun(graph);
      assert.equal((await engine.continueRun(alone.run_id)).status, 'completed');
      assert.deepEqual(
        [...new Set(told)].sort(),
        ['node.finished', 'run.updated'],
        'the hooks were told of the declared types only',
      );
      assert.equal(told.filter((t) => t === 'node.finished').length, 1);

      told.length = 0;
      const watched = await engine.createRun(graph);
      const seen: EngineEvent[] = [];
      const off = await engine.subscribe(watched.run_id, (e) => seen.push(e));
      assert.equal((await engine.continueRun(watched.run_id)).status, 'completed');
      await off();
      for (const type of [
        'node.started',
        'node.updated',
        'node.finished',
        'contract.transitioned',
        'run.updated',
      ])
        assert.ok(
          seen.some((e) => e.type === type),
          `the subscriber heard ${type}`,
        );
      assert.deepEqual(
        [...new Set(told)].sort(),
        ['node.finished', 'run.updated'],
        'the hooks still only theirs',
      );
    } finally {
      installTelemetry(previous);
      await dispose();
    }
  });

  test('hooks that declare no types hear every type', async () => {
    const { store, dispose } = await factory.open();
    const told = new Set<string>();
    const previous = installTelemetry({ engineEvent: (e) => void told.add(e.type) });
    try {
      const engine = createEngine(store, { actions: new CountingExecutor() });
      registerKit(engine);
      engine.register(reportingNode);
      const { run_id } = await engine.createRun(graph);
      assert.equal((await engine.continueRun(run_id)).status, 'completed');
      assert.deepEqual([...told].sort(), [
        'contract.transitioned',
        'node.finished',
        'node.started',
        'node.updated',
        'run.updated',
      ]);
    } finally {
      installTelemetry(previous);
      await dispose();
    }
  });
});
