/**
 * The pure prompt builders (seed 002 "pure functional context generation"): State → reasoning
 * prompt and State → conversation messages. No I/O, no clock: the same state gives the same text,
 * which the snapshot tests pin for each mode.
 */
import type { AgentState } from './state/agent-state.ts';
import { situatedContext } from './state/agent-state.ts';
import { compressForContext } from './state/reasoning-context.ts';

/** A tool as the prompt lists it. */
export interface PromptTool {
  name: string;
  description: string;
  input_schema?: Record<string, unknown>;
}

const RESULT_CHARS = 400;

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function argsHint(tool: PromptTool): string {
  const props = (tool.input_schema?.properties ?? null) as Record<string, { type?: unknown }> | null;
  if (!props) return '';
  const names = Object.entries(props).map(([k, v]) => (typeof v?.type === 'string' ? `${k}: ${v.type}` : k));
  return names.length > 0 ? ` (args: ${names.join(', ')})` : '';
}

const DEEP = `DEEP MODE: Structured reasoning required
- REFLECT: What have I learned? What worked/failed? What gaps remain?
- ANALYZE: What are the core problems or strategic considerations?
- STRATEGIZE: What's my multi-step plan? What tools will I use and why?`;

const FAST = `FAST MODE: Direct execution
- Review context above
- Choose appropriate tools and act efficiently
- ESCALATE to deep mode if task proves complex`;

const ACTIONS = `ACTIONS:
- MCP tools: to use a tool, list it in "tool_calls" with its exact name and JSON "args". Results come back as RECENT RESULTS in the next iteration (✓ completed, ✗ failed).
- ECS: when only the user can provide something (a choice, an approval, missing data), set "ecs_request" with a form: "title", "description" and "fields" (a JSON Schema of type object). The conversation pauses until the user answers the form.
- Memory: put facts worth remembering about the user in "memory_update".
- Answer: set "response" when you are ready to answer the user; it ends this interaction.`;

const REPLY = `Respond with JSON:
{
    "thinking": "Your reasoning for this step",
    "tool_calls": [
        {"name": "tool_name", "args": {"param": "value"}}
    ],
    "ecs_request": null,
    "memory_update": [{"text": "something to remember", "kind": "note"}],
    "context_updates": {
        "goal": "refined goal if needed",
        "strategy": "current approach",
        "insights": ["new insight if discovered"]
    },
    "response": "direct response if ready to answer user",
    "switch_mode": "fast|deep"
}`;

/** Pure function: State → reasoning prompt (the system message of the ReasoningNode's call). */
export function buildReasoningPrompt(
  state: AgentState,
  tools: readonly PromptTool[],
  mode?: 'fast' | 'deep' | 'adapt',
): string {
  const effective = mode ?? state.execution.effective_mode;
  const userContext = situatedContext(state);
  const reasoningContext = compressForContext(state.reasoning);
  const toolRegistry =
    tools.length > 0 ? tools.map((t) => `- ${t.name}: ${t.description}${argsHint(t)}`).join('\n') : '(none)';

  const recent = state.execution.completed_calls.slice(-3);
  const results =
    recent.length > 0
      ? `RECENT RESULTS:\n${recent
          .map((r) =>
            r.success
              ? `✓ ${r.name} → ${clip(JSON.stringify(r.result ?? null), RESULT_CHARS)}`
              : `✗ ${r.name} (${r.status}) → ${clip(r.error_message ?? 'no error message', RESULT_CHARS)}`,
          )
          .join('\n')}\n\n`
      : '';

  const memory = state.memory;
  const working = memory?.working_memory_summary ? memory.working_memory_summary : '(no earlier turns)';
  const longTerm =
    memory && memory.relevant_long_term_memory.length > 0
      ? memory.relevant_long_term_memory.map((m) => `- [${m.kind}] ${m.text}`).join('\n')
      : '(none)';
  const emotion = state.emotion
    ? `EMOTION: the user seems ${state.emotion.emotion} (intensity ${state.emotion.intensity}).\nEMOTION MODULATION: ${state.emotion.modulation}\n\n`
    : '';

  const instructions = effective === 'deep' ? DEEP : FAST;
  const e = state.execution;
  return `${userContext}WORKING MEMORY:
${working}

RELEVANT LONG-TERM MEMORY:
${longTerm}

${emotion}REASONING CONTEXT:
${reasoningContext}

${results}AVAILABLE TOOLS:
${toolRegistry}

${ACTIONS}

${instructions}

Iteration ${e.iteration}/${e.max_iterations}

${REPLY}`;
}

/** Pure function: State → LLM messages (the seed's `build_conversation_context`). */
export function buildConversationContext(
  state: Pick<AgentState, 'execution'>,
): Array<{ role: string; content: string }> {
  return state.execution.messages.map((m) => ({ role: m.role, content: m.content }));
}
