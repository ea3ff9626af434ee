/**
 * The demo's agent session: the `examples/agents/calculator` agent adds two numbers with its MCP
 * tool, then asks for a day with an ECS form, which the demo answers itself (the first allowed
 * value of each field) and continues — one session showing a tool call and a human-in-the-loop pause.
 */
import { NoemaError } from '../../../core/errors.ts';
import { createAgentRuntime, type SessionEvent, type TurnResult } from '../../../runtimes/agent/index.ts';
import type { Store } from '../../../store/store.ts';
import { agentReasoningMemory } from '../../mcp/agent-memory.ts';
import { resolveAgentFile } from '../agent-files.ts';
import { DEMO_FILES, type Env } from './services.ts';

export const DEMO_MESSAGES = ['add 2 and 3', 'book a slot for my lesson'] as const;

export interface DemoSession {
  session_id: string;
  tool_calls: Array<{ name: string; status: string }>;
  forms: Array<{ title: string; answer: Record<string, unknown> }>;
  replies: string[];
}

type FieldSchema = { enum?: unknown[]; default?: unknown; type?: unknown };

/** An answer a person might give: each field's default, else its first allowed value, else a plain one. */
export function autoAnswer(form: Record<string, unknown>): Record<string, unknown> {
  const fields = (form.fields ?? {}) as { properties?: Record<string, FieldSchema> };
  const answer: Record<string, unknown> = {};
  for (const [name, f] of Object.entries(fields.properties ?? {})) {
    if (f.default !== undefined) answer[name] = f.default;
    else if (Array.isArray(f.enum) && f.enum.length > 0) answer[name] = f.enum[0];
    else if (f.type === 'number' || f.type === 'integer') answer[name] = 1;
    else if (f.type === 'boolean') answer[name] = true;
    else answer[name] = 'demo';
  }
  return answer;
}

/**
 * A turn that did not end with an answer or a form (its run failed, say every reasoning attempt
 * was rejected: GENERATION_FAILED) stops the demo: DEMO_STEP_FAILED naming the session and the run.
 */
export function checkTurn(turn: TurnResult, store: Pick<Store, 'location'>): void {
  const status = turn.outcome.status;
  if (status === 'completed' || status === 'waiting') return;
  const error = turn.outcome.error;
  throw new NoemaError(
    'DEMO_STEP_FAILED',
    `agent session ${turn.session_id} failed (run ${turn.run_id}): ${error?.code ?? `RUN_${status.toUpperCase()}`}: ${error?.message ?? `the run ended ${status}`}`,
    {
      details: { session_id: turn.session_id, run_id: turn.run_id, status, error: error ?? null },
      hint: `NOEMA_DB=${store.location} noema serve, then open /sessions/${turn.session_id} for its events and calls`,
    },
  );
}

export async function runDemoSession(
  store: Store,
  env: Env,
  onStatus: (line: string) => void,
): Promise<DemoSession> {
  const runtime = await createAgentRuntime(store, { env, reasoningMemory: agentReasoningMemory(store) });
  try {
    const { hash } = await runtime.putAgent(await resolveAgentFile(store, DEMO_FILES.agent));
    const { session_id } = await runtime.createSession({ agent_ref: { hash }, user_id: 'demo' });
    const out: DemoSession = { session_id, tool_calls: [], forms: [], replies: [] };
    const onEvent = (e: SessionEvent) => {
      const d = e.data as Record<string, unknown>;
      if (e.event === 'tool_result') {
        out.tool_calls.push({ name: String(d.name), status: String(d.status) });
        onStatus(`tool ${String(d.name)} → ${String(d.status)}`);
      } else if (e.event === 'text') {
        out.replies.push(String(d.text));
        onStatus(`agent: ${String(d.text)}`);
      }
    };
    for (const content of DEMO_MESSAGES) {
      onStatus(`user: ${content}`);
      let turn: TurnResult = await runtime.sendMessage(session_id, { content }, onEvent);
      checkTurn(turn, store);
      while (turn.status === 'waiting') {
        const waiting = turn.outcome.waiting[0]!;
        const form = (waiting.payload as { form?: Record<string, unknown> }).form ?? {};
        const answer = autoAnswer(form);
        out.forms.push({ title: String(form.title ?? 'form'), answer });
        onStatus(`form "${String(form.title ?? '')}" answered ${JSON.stringify(answer)}`);
        await runtime.respondEcs({ session_id, contract_id: waiting.contract_id, response: answer });
        turn = await runtime.continueEcs({ session_id }, onEvent);
        checkTurn(turn, store);
      }
    }
    // Profile updates run in the background after each interaction; let them land before closing.
    await runtime.idle();
    return out;
  } finally {
    await runtime.close();
  }
}
