/**
 * ToolNode (seed 000): executes every PENDING `tool_call` contract through the sources layer —
 * `PENDING → RUNNING` durable before the MCP call, then `COMPLETED` (result + observation) or
 * `FAILED` (error_message + observation) — and emits one `tool_result` per contract.
 */
import type { NodeType } from '../../../engine/index.ts';
import { emit } from './deps.ts';

export function toolNode(): NodeType<null> {
  return {
    type: 'tool',
    description: 'Executes pending tool_call contracts through the sources layer (agent_tool_call).',
    async execute(ctx) {
      for (const c of ctx.pending_executions.filter((p) => p.action_type === 'tool_call')) {
        const done = await ctx.perform(c.contract_id);
        const p = done.payload as { name?: string; args?: unknown };
        emit(ctx, 'tool_result', {
          contract_id: done.contract_id,
          name: p.name ?? null,
          args: p.args ?? null,
          status: done.status,
          result: done.result,
          error_message: done.error_message,
          observation: done.observation,
        });
      }
      // Its step commits with the run's next transaction (the next call's record): every contract it
      // performed is settled already, and its `tool_result` events are queued for that transaction.
      return { kind: 'ok', commitsWithNext: true };
    },
  };
}
