/**
 * The node context made lazily (`run/node-context.ts`) and the one-node step's shared frontier
 * (`run/state.ts`) behave as the eager ones did: callbacks work detached, lists are taken when the
 * context is made, and a frontier shared between steps and runs is never changed by them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachStore } from '../testing/each-store.ts';
import { CountingExecutor } from '../testing/engine-kit.ts';
import { createEngine } from './create-engine.ts';
import type { GraphSpec, Json, NodeType } from './engine.ts';

/** Acts through a destructured `act`, and reports what its context listed before and after. */
const detached: NodeType<null> = {
  type: 'detached_act',
  async execute(ctx) {
    const { act, pending_executions, completed_executions } = ctx;
    const before = pending_executions.length + completed_executions.length;
    const c = await act('tool_call', { tool: 'add', args: { a: 2, b: 3 } } as Json);
    const after = ctx.pending_executions.length + ctx.completed_executions.length;
    return { kind: 'ok', writes: { log: [c.result ?? null, before, after] } };
  },
};

/** The `a` argument of each listed contract's call: which contract is which. */
const argsOf = (cs: readonly { payload: Json }[]) =>
  cs.map((c) => (c.payload as { args: { a: number } }).args.a);

/**
 * Visit 1 creates contract 1 (left PENDING), visit 2 acts contract 2 (done at once), visit 3 performs
 * contract 1, visit 4 only looks; each logs its lists (visits 1 and 4 before and after acting).
 */
const outOfOrder: NodeType<null> = {
  type: 'out_of_order',
  async execute(ctx) {
    const visit = (ctx.state.log as unknown[]).length + 1;
    const lists = () => [argsOf(ctx.pending_executions), argsOf(ctx.completed_executions)];
    // Visits 2 and 3 first read their lists after their action: still the lists from before it.
    const before = visit === 2 || visit === 3 ? [] : lists();
    if (visit === 1)
      return {
        kind: 'ok',
        route: 'again',
        writes: { log: before },
        contracts: [{ action_type: 'tool_call', payload: { tool: 'add', args: { a: 1, b: 1 } } }],
      };
    if (visit === 2) await ctx.act('tool_call', { tool: 'add', args: { a: 2, b: 3 } } as Json);
    if (visit === 3) await ctx.perform(ctx.pending_executions[0]!.contract_id);
    return { kind: 'ok', route: visit === 4 ? 'done' : 'again', writes: { log: [...before, ...lists()] } };
  },
};

/** Writes who fed it (node ids, in order), read twice from one context. */
const fed: NodeType<null> = {
  type: 'fed',
  execute(ctx) {
    const ic = ctx.input_context;
    assert.equal(ctx.input_context, ic, 'input_context is one object for the whole execution');
    return { kind: 'ok', writes: { log: [ctx.node_id, ...ic.upstream_nodes.map((u) => u.node_id)] } };
  },
};

const actGraph: GraphSpec = {
  entry: 'a',
  channels: { log: { reducer: 'append' } },
  nodes: [
    { id: 'a', type: 'detached_act' },
    { id: 'end', type: 'terminal' },
  ],
  connectors: [{ from: 'a', to: 'end' }],
};

/** a fans out to b and c (one node's frontier of two), which both feed d (a merged frontier). */
const fanGraph: GraphSpec = {
  entry: 'a',
  channels: { log: { reducer: 'append' } },
  nodes: [
    { id: 'a', type: 'fed' },
    { id: 'b', type: 'fed' },
    { id: 'c', type: 'fed' },
    { id: 'd', type: 'fed' },
    { id: 'end', type: 'terminal' },
  ],
  connectors: [
    { from: 'a', to: 'b' },
    { from: 'a', to: 'c' },
    { from: 'b', to: 'd' },
    { from: 'c', to: 'd' },
    { from: 'd', to: 'end' },
  ],
};

describeEachStore('engine: the node context', (factory) => {
  test('a destructured act performs its action; the context lists are those from when it was made', async () => {
    await factory.withStore(async ({ store }) => {
      const engine = createEngine(store, { actions: new CountingExecutor(), fanOut: false });
      engine.register(detached as NodeType<never>);
      const out = await engine.start(actGraph);
      assert.equal(out.status, 'completed', JSON.stringify(out.error));
      // 5 from the executor; no contract when the context was made, so none after the act either.
      assert.deepEqual((await engine.getRun(out.run_id)).state.log, [[5, 0, 0]]);
      await engine.close();
    });
  });

  test('contract lists are in creation order, whatever order the contracts finished in, and stay as they were when the context was made', async () => {
    await factory.withStore(async ({ store }) => {
      const engine = createEngine(store, { actions: new CountingExecutor(), fanOut: false });
      engine.register(outOfOrder as NodeType<never>);
      const out = await engine.start({
        entry: 'n',
        channels: { log: { reducer: 'append' } },
        nodes: [
          { id: 'n', type: 'out_of_order' },
          { id: 'end', type: 'terminal' },
        ],
        connectors: [
          { from: 'n', to: 'n', route: 'again' },
          { from: 'n', to: 'end', route: 'done' },
        ],
      });
      assert.equal(out.status, 'completed', JSON.stringify(out.error));
      // Each entry: pending and completed before the visit's action, then after it (same context).
      assert.deepEqual((await engine.getRun(out.run_id)).state.log, [
        [[], []],
        [[1], []],
        [[1], [2]],
        [[], [1, 2], [], [1, 2]],
      ]);
      await engine.close();
    });
  });

  test('a one-node step’s shared frontier is not changed by later steps or by another run', async () => {
    await factory.withStore(async ({ store }) => {
      const engine = createEngine(store, { fanOut: false });
      engine.register(fed as NodeType<never>);
      const expected = [['a'], ['b', 'a'], ['c', 'a'], ['d', 'b', 'c']];
      for (let run = 0; run < 2; run++) {
        const out = await engine.start(fanGraph);
        assert.equal(out.status, 'completed', JSON.stringify(out.error));
        assert.deepEqual((await engine.getRun(out.run_id)).state.log, expected, `run ${run + 1}`);
      }
      await engine.close();
    });
  });
});
