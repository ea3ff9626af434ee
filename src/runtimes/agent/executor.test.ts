import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ActionContext, ActionExecutor, ExecutionContract } from '../../engine/index.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import { agentExecutor } from './executor.ts';

function contract(action_type: string, payload: Record<string, unknown>): ExecutionContract {
  return {
    contract_id: `c-${action_type}`,
    action_type,
    payload: payload as never,
    status: 'RUNNING',
    result: null,
    error_message: null,
    transitions: [],
  } as unknown as ExecutionContract;
}

/** A sources executor stand-in that records what reaches it. */
function fakeSources(seen: string[]): ActionExecutor {
  return {
    joinsTransitions: true,
    async execute(c) {
      seen.push(`execute ${c.action_type}`);
      return { ok: true, result: null };
    },
    async recover(c) {
      seen.push(`recover ${c.action_type}`);
      return { ok: true, result: { recovered: c.contract_id } };
    },
  };
}

describeEachStore('the agent executor over the sources executor', (factory) => {
  test('passes joined transitions and recovery through for source-backed calls', async () => {
    await factory.withStore(async ({ store }) => {
      const seen: string[] = [];
      const ex = agentExecutor(store, fakeSources(seen));
      assert.equal(ex.joinsTransitions, true);
      const ctx = { run_id: 'r', node_id: 'reasoning', step: 1, signal: new AbortController().signal };
      const llm = contract('llm_generation', { source_hash: 'h', request: {} });
      assert.deepEqual(await ex.recover?.(llm, ctx), { ok: true, result: { recovered: 'c-llm_generation' } });
      // The agent's own actions leave no invocation to recover from: the engine's rule applies.
      assert.equal(await ex.recover?.(contract('memory_save', {}), ctx), null);
      assert.deepEqual(seen, ['recover llm_generation']);
    });
  });

  test("an agent's own action commits RUNNING before its write when transitions are joined", async () => {
    await factory.withStore(async ({ store }) => {
      const order: string[] = [];
      const ex = agentExecutor(store, fakeSources(order));
      const ctx: ActionContext = {
        run_id: 'r',
        node_id: 'memory',
        step: 1,
        signal: new AbortController().signal,
        transitions: {
          async running(write) {
            const n = await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM long_term_memories');
            order.push(`running (memories: ${Number(n?.n)})`);
            return store.transaction(write);
          },
          async finished() {
            throw new Error('not used by the agent’s own actions');
          },
        },
      };
      const out = await ex.execute(
        contract('memory_save', {
          scope_kind: 'user',
          scope_id: 'ada',
          text: 'likes sums',
          kind: 'fact',
          meta: {},
        }),
        ctx,
      );
      assert.equal(out.ok, true);
      const n = await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM long_term_memories');
      assert.deepEqual(order, ['running (memories: 0)']);
      assert.equal(Number(n?.n), 1);
    });
  });
});
