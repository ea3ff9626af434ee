import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachStore } from '../testing/each-store.ts';
import { FORM_SCHEMA } from '../testing/engine-kit.ts';
import { createEngine } from './create-engine.ts';
import type { EngineEvent, GraphSpec, Json, NodeType } from './engine.ts';

/** `ask` creates a PENDING form contract; `wait` suspends on it (seed 000: ECSNode moves it to WAITING). */
const ask: NodeType<null> = {
  type: 'ask',
  execute: (ctx) =>
    ctx.completed_executions.length > 0
      ? { kind: 'ok', route: 'done', writes: { answer: ctx.completed_executions[0]!.result } }
      : {
          kind: 'ok',
          route: 'wait',
          contracts: [{ action_type: 'form', payload: { response_schema: FORM_SCHEMA as unknown as Json } }],
        },
};
const wait: NodeType<{ target?: string }> = {
  type: 'wait',
  execute: (ctx) => ({
    kind: 'suspend',
    wait_on: ctx.config?.target ?? ctx.pending_executions.find((c) => c.action_type === 'form')!.contract_id,
  }),
};
const graph = (config?: Json): GraphSpec => ({
  entry: 'ask',
  channels: { answer: { reducer: 'value' } },
  nodes: [
    { id: 'ask', type: 'ask' },
    { id: 'wait', type: 'wait', ...(config ? { config } : {}) },
    { id: 'end', type: 'terminal' },
  ],
  connectors: [
    { from: 'ask', to: 'wait', route: 'wait' },
    { from: 'ask', to: 'end', route: 'done' },
    { from: 'wait', to: 'ask' },
  ],
});

describeEachStore('engine suspension on an existing contract', (factory) => {
  test('a node suspends on a PENDING contract an earlier node created: PENDING → WAITING → RUNNING → COMPLETED', async () => {
    await factory.withStore(async ({ store }) => {
      const engine = createEngine(store);
      engine.register(ask as NodeType<never>);
      engine.register(wait as NodeType<never>);
      const out = await engine.start(graph());
      assert.equal(out.status, 'waiting');
      const [waiting] = out.waiting;
      assert.equal(waiting!.node_id, 'ask', 'the contract is the one ask created');
      assert.deepEqual(
        waiting!.transitions.map((t) => [t.to, t.actor]),
        [
          ['PENDING', 'node:ask'],
          ['WAITING', 'node:wait'],
        ],
      );
      assert.equal((await engine.getRun(out.run_id)).contracts.length, 1, 'no second contract');
      const events: EngineEvent[] = [];
      await engine.subscribe(out.run_id, (e) => events.push(e));
      const done = await engine.resume(out.run_id, waiting!.contract_id, { approved: true });
      assert.equal(done.status, 'completed');
      const run = await engine.getRun(out.run_id);
      assert.deepEqual(run.state.answer, { approved: true });
      assert.deepEqual(
        run.contracts[0]!.transitions.map((t) => t.to),
        ['PENDING', 'WAITING', 'RUNNING', 'COMPLETED'],
      );
      await engine.close();
    });
  });

  test('waiting on something that is not a PENDING contract of the run fails the run with SUSPEND_INVALID', async () => {
    await factory.withStore(async ({ store }) => {
      const engine = createEngine(store);
      engine.register(ask as NodeType<never>);
      engine.register(wait as NodeType<never>);
      const out = await engine.start(graph({ target: 'not-a-contract' }));
      assert.equal(out.status, 'failed');
      assert.equal(out.error?.code, 'SUSPEND_INVALID');
      await engine.close();
    });
  });
});
