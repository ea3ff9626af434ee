/**
 * Which tool call a generation performs before its model call: the one its previous generation
 * recorded in the loop (`elected`, created now with `ctx.act`), or — for an older journal, whose
 * step wrote the tool call without `elected` and created it as a PENDING contract — that contract
 * (`ctx.perform`). A loop that does not end in an unanswered tool call performs nothing and does not
 * look through the run's contracts (they grow with the turn).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ContractView, NodeContext } from '../../../engine/index.ts';
import type { ConversationEntry } from './shared.ts';
import { performElectedTool } from './tool.ts';

const call = (elected?: Record<string, unknown>): ConversationEntry => ({
  subject: 0,
  node: 'act',
  kind: 'tool_call',
  message: { role: 'assistant', content: '{"kind":"tool_call"}' },
  ...(elected ? { elected: elected as never } : {}),
});
const answer: ConversationEntry = {
  subject: 0,
  node: 'act',
  kind: 'tool_result',
  message: { role: 'user', content: 'Tool result for buy_candy:\n{}' },
};

/** A node context that records what is asked of it; `contracts` are the run's PENDING ones. */
function contextWith(contracts: ContractView[]) {
  const asked: string[] = [];
  const done = { status: 'COMPLETED', result: { ok: true }, error_message: null };
  const ctx = {
    get pending_executions() {
      asked.push('pending_executions');
      return contracts;
    },
    get completed_executions() {
      asked.push('completed_executions');
      return [];
    },
    act: async (type: string) => {
      asked.push(`act ${type}`);
      return done;
    },
    perform: async (id: string) => {
      asked.push(`perform ${id}`);
      return done;
    },
    update: () => {},
  } as unknown as NodeContext<unknown>;
  return { ctx, asked };
}

const pending = {
  contract_id: 'c-old',
  node_id: 'act',
  action_type: 'model_elected_tool',
  status: 'PENDING',
  payload: { tool_name: 'buy_candy', links: { tool_loop_round: 0 } },
} as unknown as ContractView;

test('a recorded election is created and performed with ctx.act', async () => {
  const { ctx, asked } = contextWith([]);
  const out = await performElectedTool(ctx, 'act', 0, 'act', 0, [call({ tool_name: 'buy_candy' })]);
  assert.ok(out && 'entry' in out);
  assert.match(out.entry.message.content, /^Tool result for buy_candy:/);
  assert.deepEqual(asked, ['act model_elected_tool']);
});

test("an older journal's tool call without `elected` performs its PENDING contract", async () => {
  const { ctx, asked } = contextWith([pending]);
  const out = await performElectedTool(ctx, 'act', 0, 'act', 0, [call()]);
  assert.ok(out && 'entry' in out);
  assert.deepEqual(asked, ['pending_executions', 'perform c-old']);
});

test('a loop that does not end in an unanswered tool call performs nothing and reads no contracts', async () => {
  for (const loop of [[], [call({ tool_name: 'buy_candy' }), answer]]) {
    const { ctx, asked } = contextWith([pending]);
    assert.equal(await performElectedTool(ctx, 'act', 0, 'act', loop.length > 0 ? 1 : 0, loop), null);
    assert.deepEqual(asked, [], `loop of ${loop.length}`);
  }
});
