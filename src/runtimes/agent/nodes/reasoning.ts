/**
 * ReasoningNode (seeds 000 + 002): builds the prompt with the pure `buildReasoningPrompt`, calls
 * the agent's LLM source (a traced engine action), validates the JSON reply, and turns it into
 * effects — `response` to the dialogue, `tool_calls` into PENDING `tool_call` contracts, an
 * `ecs_request` routed to the ECS node, `memory_update` entries stored as long-term memories.
 * On re-entry it reads the finished contracts' `status`, never observation text.
 */
import { validateCompiled } from '../../../core/compiled-validators.ts';
import { schemas } from '../../../core/schema-registry.ts';
import type {
  ContractView,
  Json,
  NewContract,
  NodeContext,
  NodeResult,
  NodeType,
} from '../../../engine/index.ts';
import { getAgent } from '../definition.ts';
import { buildReasoningPrompt, type PromptTool } from '../prompt.ts';
import { memoryPromptTools } from '../reasoning-memory.ts';
import {
  type EcsForm,
  type EmotionReading,
  REASONING_REPLY_SCHEMA,
  type ReasoningReply,
} from '../reply-schema.ts';
import { type AgentState, updateReasoningFromReply } from '../state/agent-state.ts';
import { callViews, type ExecutionState, nextIteration, type StopReason } from '../state/execution-state.ts';
import { decideMode } from '../state/mode.ts';
import type { ReasoningContext } from '../state/reasoning-context.ts';
import type { UserProfile } from '../state/user-profile.ts';
import {
  type AgentNodeDeps,
  type ChatMessage,
  callModel,
  correctiveMessage,
  type ExecutionCore,
  emit,
  type MemoryContext,
  markModelOutput,
  type Notification,
  note,
  type SessionRef,
} from './deps.ts';

const ACTION_TYPES = new Set(['tool_call', 'ecs_request']);

/** The full ExecutionState of seed 002 from the run's channels and contracts. */
export function executionStateOf(
  core: ExecutionCore,
  messages: readonly ChatMessage[],
  notifications: readonly Notification[],
  contracts: readonly ContractView[],
): ExecutionState {
  const { seen_contracts: _seen, ...rest } = core;
  const calls = callViews(contracts.filter((c) => ACTION_TYPES.has(c.action_type)).map(asCall));
  return {
    ...rest,
    messages: [...messages],
    pending_calls: calls.pending,
    completed_calls: calls.completed,
    // A step appends its notes as one item (a list when it had several).
    notifications: (notifications as unknown[]).flat() as Notification[],
  };
}

/** ECS contracts show as calls named `ecs_request` so their answers reach the prompt by status too. */
function asCall(c: ContractView): ContractView {
  return c.action_type === 'ecs_request' ? { ...c, action_type: 'tool_call' } : c;
}

function stateOf(ctx: NodeContext<unknown>, core: ExecutionCore): AgentState {
  const contracts = [...ctx.completed_executions, ...ctx.pending_executions];
  return {
    execution: executionStateOf(
      core,
      (ctx.state.messages ?? []) as unknown as ChatMessage[],
      (ctx.state.notifications ?? []) as unknown as Notification[],
      contracts,
    ),
    reasoning: ctx.state.reasoning as unknown as ReasoningContext,
    user_profile: (ctx.state.profile ?? null) as unknown as UserProfile | null,
    emotion: (ctx.state.emotion ?? null) as unknown as EmotionReading | null,
    memory: (ctx.state.memory ?? null) as unknown as MemoryContext | null,
  };
}

/** Checks what the schema cannot: tool names and arguments, the ECS form, that the reply acts. */
function replyProblem(reply: ReasoningReply, tools: readonly PromptTool[]): string | null {
  for (const call of reply.tool_calls ?? []) {
    const tool = tools.find((t) => t.name === call.name);
    if (!tool)
      return `unknown tool "${call.name}" (available: ${tools.map((t) => t.name).join(', ') || 'none'})`;
    if (tool.input_schema) {
      // The definition is cached, so its tools' schemas are the same objects call after call.
      const r = validateCompiled(tool.input_schema, call.args);
      if (!r.ok)
        return `arguments of ${call.name} are invalid: ${r.errors.map((e) => `${e.path} ${e.message}`).join('; ')}`;
    }
  }
  if (reply.ecs_request) {
    const f = reply.ecs_request.fields;
    const c = schemas.checkSchema(f);
    if (!c.ok || f.type !== 'object') return 'ecs_request.fields must be a valid JSON Schema of type object';
  }
  const acts = Boolean(reply.response) || (reply.tool_calls?.length ?? 0) > 0 || Boolean(reply.ecs_request);
  return acts ? null : 'the reply has no response, no tool_calls and no ecs_request';
}

/** An accepted reply's `model_output_kind`: what it does (a response ends the interaction first). */
function replyKind(reply: ReasoningReply): string {
  if (reply.response) return 'response';
  return (reply.tool_calls?.length ?? 0) > 0 ? 'tool_calls' : 'ecs_request';
}

function finish(
  core: ExecutionCore,
  stop: StopReason,
  response: string | null,
  extra: Record<string, Json> = {},
): NodeResult {
  const next: ExecutionCore = { ...core, stop_reason: stop, response };
  const writes: Record<string, Json> = { execution: next as unknown as Json, ...extra };
  return { kind: 'ok', route: 'done', writes, output: { stop_reason: stop } };
}

export function reasoningNode(deps: AgentNodeDeps): NodeType<null> {
  return {
    type: 'reasoning',
    description:
      'Builds the reasoning prompt, calls the LLM, turns the JSON reply into contracts and memories.',
    async execute(ctx): Promise<NodeResult> {
      const session = ctx.state.session as unknown as SessionRef;
      const def = await getAgent(deps.store, session.agent_hash);
      let core = ctx.state.execution as unknown as ExecutionCore;

      const loop = nextIteration(core);
      if (!loop.continue) {
        const text =
          loop.stop_reason === 'max_iterations'
            ? `I could not finish within ${core.max_iterations} reasoning iterations.`
            : core.response;
        return finish(
          core,
          loop.stop_reason,
          text ?? null,
          text ? { messages: message('assistant', text) } : {},
        );
      }

      // This round's results, read by status (seed 000): a FAILED tool contract may escalate adapt mode.
      const fresh = ctx.completed_executions.filter(
        (c) => ACTION_TYPES.has(c.action_type) && !core.seen_contracts.includes(c.contract_id),
      );
      const iteration = core.iteration + 1;
      const mode = decideMode({
        mode: core.mode,
        current: core.effective_mode,
        tool_failed: fresh.some((c) => c.action_type === 'tool_call' && c.status === 'FAILED'),
        iteration: core.iteration,
        ...(def.escalate_after ? { escalate_after: def.escalate_after } : {}),
      });
      core = {
        ...core,
        iteration,
        effective_mode: mode.effective,
        seen_contracts: [...core.seen_contracts, ...fresh.map((c) => c.contract_id)].slice(-200),
      };
      const notes: Notification[] = mode.note ? [note('mode', mode.note)] : [];

      const state = stateOf(ctx, core);
      const memoryTools = memoryPromptTools(deps.memory, def.reasoning_memory);
      const tools: PromptTool[] = [...def.tools, ...memoryTools];
      const prompt = buildReasoningPrompt(state, tools, core.effective_mode);
      const call = await callModel(ctx, {
        source_hash: def.llm_source_ref.hash,
        store: deps.store,
        judges: deps.judges,
        schema_hash: deps.schemaHashes.reasoning,
        // Named with the finished row; a reply the node rejects is marked below, with its reason.
        kind_of: (value) =>
          replyProblem(value as unknown as ReasoningReply, tools)
            ? null
            : replyKind(value as unknown as ReasoningReply),
        contract: REASONING_REPLY_SCHEMA,
        key: `reasoning-${iteration}`,
        stream_response: true,
        messages: [
          { role: 'system', content: def.system_prompt ? `${def.system_prompt}\n\n${prompt}` : prompt },
          ...state.execution.messages.map((m) => ({ role: m.role, content: m.content })),
          ...correctiveMessage(ctx),
        ],
      });
      if (!call.ok && call.content_failure)
        return {
          kind: 'retry_generation',
          error: call.error,
          corrective: 'Reply with one JSON object matching the schema.',
        };
      if (!call.ok) return { kind: 'fail', code: 'MODEL_CALL_FAILED', message: call.error };

      const reply = call.value as unknown as ReasoningReply;
      const problem = replyProblem(reply, tools);
      if (problem) await markModelOutput(deps.store, ctx, call.contract, 'rejected', problem);
      if (problem)
        return {
          kind: 'retry_generation',
          error: problem,
          corrective: 'Use only listed tools with valid args, and act.',
        };

      emit(ctx, 'thinking', { thinking: reply.thinking, iteration, mode: core.effective_mode });
      const reasoning = updateReasoningFromReply(state.reasoning, reply);

      // Seed 002: switch_mode from the reply, through the one controller.
      if (reply.switch_mode) {
        const m = decideMode({
          mode: core.mode,
          current: core.effective_mode,
          switch_mode: reply.switch_mode,
          iteration,
        });
        core = { ...core, effective_mode: m.effective };
        if (m.note) notes.push(note('mode', m.note));
      }

      // memory_update entries are stored (as actions: journaled, so a replay never stores twice).
      for (const [i, m] of (reply.memory_update ?? []).entries()) {
        const saved = await ctx.act(
          'memory_save',
          {
            scope_kind: 'user',
            scope_id: session.user_id,
            text: m.text,
            kind: m.kind ?? 'note',
            meta: { session_id: session.session_id, run_id: ctx.run_id },
          },
          { key: `memory-${iteration}-${i}` },
        );
        if (saved.status === 'COMPLETED')
          emit(ctx, 'memory_saved', { ...(saved.result as Record<string, unknown>) });
        else notes.push(note('memory_not_saved', saved.error_message ?? 'memory_save failed'));
      }

      const base: Record<string, Json> = { reasoning: reasoning as unknown as Json };
      if (notes.length > 0) base.notifications = notes as unknown as Json;

      if (reply.response) {
        emit(ctx, 'text', { text: reply.response });
        const done: ExecutionCore = { ...core, response: reply.response, stop_reason: 'response' };
        return {
          kind: 'ok',
          route: 'done',
          writes: {
            ...base,
            execution: done as unknown as Json,
            messages: message('assistant', reply.response),
          },
          output: { stop_reason: 'response' },
        };
      }
      if (reply.tool_calls && reply.tool_calls.length > 0) {
        const mcp = new Map(def.tools.map((t) => [t.name, t]));
        const contracts: NewContract[] = reply.tool_calls.map((c) => {
          const tool = mcp.get(c.name);
          // An MCP tool is a source call; a reasoning-memory tool runs on the agent's workspace.
          const target = tool
            ? {
                source_hash: tool.source_ref.hash,
                request: c.args,
                kind: 'agent_tool_call',
                tool_name: c.name,
              }
            : { reasoning_memory: { workspace: def.reasoning_memory!.workspace } };
          return {
            action_type: 'tool_call',
            payload: { name: c.name, args: c.args, ...target } as unknown as Json,
          };
        });
        // The step (its new contracts with it) commits with the tool's first record, which performs them.
        return {
          kind: 'ok',
          route: 'tool',
          contracts,
          writes: { ...base, execution: core as unknown as Json },
          commitsWithNext: true,
        };
      }
      // Seed 000: the ECS request becomes an `ecs_request` contract in pending_executions; the ECS
      // node moves it to WAITING and the run suspends.
      const form = reply.ecs_request as EcsForm;
      return {
        kind: 'ok',
        route: 'ecs',
        contracts: [
          {
            action_type: 'ecs_request',
            payload: {
              name: 'ecs_request',
              args: { title: form.title },
              form: form as unknown as Json,
              response_schema: form.fields as Json,
            },
          },
        ],
        writes: { ...base, execution: core as unknown as Json },
      };
    },
  };
}

function message(role: 'user' | 'assistant', content: string): Json {
  return { role, content, timestamp: new Date().toISOString() } as unknown as Json;
}
