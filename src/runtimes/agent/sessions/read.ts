/**
 * Reading a session: transcript, the latest run's ExecutionState, ReasoningContext and contracts,
 * status `idle | running | waiting`, and the waiting ECS form if any. Bounded: the transcript shows
 * the newest `max_messages` and says `truncated`.
 */
import type { AgentContext } from '../context.ts';
import { entriesToObject } from '../state/bounded.ts';
import type { ReasoningContext } from '../state/reasoning-context.ts';
import { findCheckpoint } from './checkpoints.ts';
import { executionStateOfRun } from './drive.ts';
import { getSessionOrThrow, recentMessages } from './session-store.ts';

export async function getSessionView(
  cx: AgentContext,
  session_id: string,
  options: { max_messages?: number } = {},
): Promise<Record<string, unknown>> {
  const s = await getSessionOrThrow(cx.store, session_id);
  const max = Math.min(500, Math.max(1, options.max_messages ?? 100));
  const transcript = await recentMessages(cx.store, session_id, max + 1);
  const truncated = transcript.length > max;
  let execution_state = null;
  let reasoning_context = null;
  let contracts: unknown[] = [];
  // A claimed turn's run is created right after its claim commits: until then there is none to show.
  const run = s.run_id
    ? await cx.engine.getRun(s.run_id).catch((err: { code?: string }) => {
        if (err.code === 'UNKNOWN_RUN' && s.status === 'running') return null;
        throw err;
      })
    : null;
  if (run) {
    execution_state = executionStateOfRun(run);
    const rc = run.state.reasoning as unknown as ReasoningContext | null;
    reasoning_context = rc ? { ...rc, facts: entriesToObject(rc.facts) } : null;
    contracts = run.contracts;
  }
  const cp = s.status === 'waiting' ? await findCheckpoint(cx.store, session_id) : null;
  return {
    session_id: s.session_id,
    agent_hash: s.agent_hash,
    user_id: s.user_id,
    status: s.status,
    run_id: s.run_id,
    turn_count: s.turn_count,
    transcript: truncated ? transcript.slice(1) : transcript,
    truncated,
    execution_state,
    reasoning_context,
    contracts,
    waiting: cp ? { contract_id: cp.contract_id, response_recorded: cp.response !== null } : null,
    created_at: new Date(s.created_at).toISOString(),
    updated_at: new Date(s.updated_at).toISOString(),
  };
}
