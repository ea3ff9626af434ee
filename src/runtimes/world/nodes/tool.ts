/**
 * The tool call a generation elected: recorded in the loop by the step of the generation that asked
 * for it, and performed as a `model_elected_tool` contract through the sources executor — the
 * contract created with the invocation's running row, durable before the call — at the start of the
 * node's next generation (`performElectedTool`), whose prompt it opens as a JSON-bearing message. A
 * failed tool call fails the attempt. A call a crash interrupted (its outcome unknown) follows the
 * tool's declared idempotency: an `idempotent` tool is called again; any other is not, and the model
 * is told its outcome is unknown. `world.tool`, the node that performed it in a step of its own,
 * stays registered for attempts whose graph has it.
 */
import {
  actRedoingInterrupted,
  type ContractView,
  isInterrupted,
  type Json,
  MAX_INTERRUPTED_REDOS,
  type NodeContext,
  type NodeResult,
  type NodeType,
} from '../../../engine/index.ts';
import { type ConversationEntry, channelsOf, loopOf } from './shared.ts';

const UNKNOWN_OUTCOME =
  'the process making this call stopped before its answer was recorded: it may or may not have taken effect, and it was not made again';

/** The elected call of `generator` (a node id) in tool-loop round `round`, if there is one. */
function electedCall(ctx: NodeContext<unknown>, generator: string, round: number): ContractView | undefined {
  const mine = (c: ContractView) =>
    c.node_id === generator &&
    c.action_type === 'model_elected_tool' &&
    (c.payload as { links?: { tool_loop_round?: number } }).links?.tool_loop_round === round;
  // PENDING on the first attempt; already COMPLETED on a retry of the same execution (replayed).
  return ctx.pending_executions.find(mine) ?? ctx.completed_executions.find(mine);
}

/**
 * Performs the call `generator` elected in round `round` and returns its result as the loop's next
 * message; `null` when it elected none; a failing result when the call failed. The call is the
 * one the generation's step recorded in the loop (`elected`, the last entry, not answered yet),
 * created and performed here with `ctx.act` — its contract committed with the invocation's running
 * row, and shared by every attempt of this execution, so a retry or a re-execution after a crash
 * replays it instead of calling the tool again — or, for an attempt whose generation created it as
 * a PENDING contract of its step (before it was recorded in the loop), that contract.
 */
export async function performElectedTool(
  ctx: NodeContext<unknown>,
  generator: string,
  subject: number,
  node: string,
  round: number,
  loop: readonly ConversationEntry[] = [],
  idempotent: (tool_name: string) => boolean = () => false,
): Promise<{ entry: ConversationEntry } | { fail: NodeResult } | null> {
  const last = loop.at(-1);
  if (last?.kind !== 'tool_call') return null;
  const recorded = last.elected ?? null;
  // A loop whose last entry is an unanswered tool call without `elected` is an older journal's:
  // that step also created the call as a PENDING contract (the only case worth scanning the run's
  // contracts for, which grow with the turn).
  const call = recorded ? null : electedCall(ctx, generator, round);
  if (!recorded && !call) return null;
  const payload = (recorded ?? call!.payload) as { tool_name: string };
  if (recorded || call!.status === 'PENDING')
    ctx.update({ kind: 'tool_call', tool_name: payload.tool_name, status: 'started' });
  const payloadJson = recorded ?? call!.payload;
  // Made again after a crash interrupted it only when the tool is declared idempotent; each redo an
  // action of its own (a finished one replays, so only the interrupted one is redone).
  const redo = {
    key: `tool:${round}`,
    acrossAttempts: true,
    maxRedos: idempotent(payload.tool_name) ? MAX_INTERRUPTED_REDOS : 0,
    onRedo: () =>
      ctx.update({ kind: 'tool_call', tool_name: payload.tool_name, status: 'redone_after_interruption' }),
  };
  let done = recorded
    ? await actRedoingInterrupted(ctx, 'model_elected_tool', recorded, redo)
    : await ctx.perform(call!.contract_id);
  // An older journal's PENDING contract, performed as it was created: its redos are keyed as a
  // recorded call's first redo and on.
  if (!recorded && isInterrupted(done) && redo.maxRedos > 0) {
    redo.onRedo();
    done = await actRedoingInterrupted(ctx, 'model_elected_tool', payloadJson, {
      ...redo,
      key: `${redo.key}:redo:1`,
      maxRedos: redo.maxRedos - 1,
    });
  }
  if (isInterrupted(done)) {
    ctx.update({ kind: 'tool_call', tool_name: payload.tool_name, status: 'outcome_unknown' });
    const content = `Tool result for ${payload.tool_name}:\n${JSON.stringify({ outcome: 'unknown', error: UNKNOWN_OUTCOME })}`;
    return {
      entry: { subject, node, kind: 'tool_result', outcome: 'unknown', message: { role: 'user', content } },
    };
  }
  if (done.status !== 'COMPLETED')
    return {
      fail: {
        kind: 'fail',
        code: 'TOOL_FAILED',
        message: `tool ${payload.tool_name} failed: ${done.error_message}`,
      },
    };
  const content = `Tool result for ${payload.tool_name}:\n${JSON.stringify(done.result)}`;
  return { entry: { subject, node, kind: 'tool_result', message: { role: 'user', content } } };
}

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
      const { subject, node, generator } = ctx.config;
      const loop = loopOf(channelsOf(ctx).conversation, subject, node);
      const round = loop.filter((c) => c.kind === 'tool_result').length;
      const r = await performElectedTool(ctx, generator, subject, node, round, loop);
      if (r === null)
        return { kind: 'fail', code: 'TOOL_CALL_MISSING', message: 'no pending tool call for this node' };
      if ('fail' in r) return r.fail;
      return { kind: 'ok', writes: { conversation: r.entry as unknown as Json } };
    },
  };
}
