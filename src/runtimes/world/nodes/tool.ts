/**
 * `world.tool`: performs the `model_elected_tool` contract its generation created — through the
 * sources executor, durable before the call — and appends the result to the loop as a
 * JSON-bearing message. A failed tool call fails the attempt.
 */
import type { Json, NodeType } from '../../../engine/index.ts';
import { type ConversationEntry, channelsOf } from './shared.ts';

export function toolNode(): NodeType<{ subject: number; node: string; generator: string }> {
  return {
    type: 'world.tool',
    description: 'Performs the tool call the model elected and returns its JSON result to the loop.',
    inputSchema: {
      type: 'object',
      required: ['subject', 'node', 'generator'],
      properties: {
        subject: { type: 'integer', minimum: 0 },
        node: { type: 'string' },
        generator: { type: 'string' },
      },
    },
    async execute(ctx) {
      const pending = ctx.pending_executions.filter(
        (c) => c.node_id === ctx.config.generator && c.action_type === 'model_elected_tool',
      );
      const mine = pending[0];
      if (!mine)
        return { kind: 'fail', code: 'TOOL_CALL_MISSING', message: 'no pending tool call for this node' };
      const payload = mine.payload as { tool_name: string };
      ctx.update({ kind: 'tool_call', tool_name: payload.tool_name, status: 'started' });
      const done = await ctx.perform(mine.contract_id);
      channelsOf(ctx);
      if (done.status !== 'COMPLETED')
        return {
          kind: 'fail',
          code: 'TOOL_FAILED',
          message: `tool ${payload.tool_name} failed: ${done.error_message}`,
        };
      const entry: ConversationEntry = {
        subject: ctx.config.subject,
        node: ctx.config.node,
        kind: 'tool_result',
        message: {
          role: 'user',
          content: `Tool result for ${payload.tool_name}:\n${JSON.stringify(done.result)}`,
        },
      };
      return { kind: 'ok', writes: { conversation: entry as unknown as Json } };
    },
  };
}
