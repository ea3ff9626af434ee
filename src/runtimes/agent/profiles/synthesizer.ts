/**
 * Queues and runs the background profile update of a finished interaction. The job is durable
 * before it runs (a `user_profile_updates` row, then a queued engine run of SYNTHESIS_GRAPH with
 * the same id), so a restart finds and finishes it (`resumeProfileUpdates`). Updates of one user
 * run one after another in a process; across processes the profile's revision check guards them.
 */
import { uuidv7 } from '../../../core/index.ts';
import type { Json } from '../../../engine/index.ts';
import type { AgentContext } from '../context.ts';
import type { SessionRow } from '../sessions/session-store.ts';
import type { ExecutionState } from '../state/execution-state.ts';
import { SYNTHESIS_GRAPH, type SynthesisJob } from './synthesis-graph.ts';

const perUser = new WeakMap<AgentContext, Map<string, Promise<unknown>>>();

function runInBackground(cx: AgentContext, user_id: string, run_id: string): void {
  const chains = perUser.get(cx) ?? new Map<string, Promise<unknown>>();
  perUser.set(cx, chains);
  const before = chains.get(user_id) ?? Promise.resolve();
  const p = before
    .catch(() => {})
    .then(() => cx.engine.continueRun(run_id))
    .then(async (outcome) => {
      if (outcome.status === 'completed' || outcome.status === 'failed' || outcome.status === 'cancelled')
        await cx.store.run('UPDATE user_profile_updates SET status = ?, finished_at = ? WHERE run_id = ?', [
          outcome.status,
          Date.now(),
          run_id,
        ]);
    })
    .catch(() => {
      // Left 'queued' for resumeProfileUpdates (e.g. the store was unreachable).
    });
  chains.set(user_id, p);
  cx.background.add(p);
  void p.finally(() => {
    cx.background.delete(p);
    if (chains.get(user_id) === p) chains.delete(user_id);
  });
}

/** After `done`: records the job, creates its engine run and starts it in the background. */
export async function queueProfileUpdate(
  cx: AgentContext,
  session: SessionRow,
  execution: ExecutionState,
): Promise<string> {
  const run_id = uuidv7();
  const job: SynthesisJob = {
    user_id: session.user_id,
    session_id: session.session_id,
    agent_hash: session.agent_hash,
    interaction: {
      query: execution.query,
      response: execution.response,
      success: Boolean(execution.response),
      mode_used: execution.effective_mode,
      iterations: execution.iteration,
    },
  };
  await cx.store.run(
    `INSERT INTO user_profile_updates (run_id, user_id, session_id, job, status, created_at)
     VALUES (?, ?, ?, ?, 'queued', ?)`,
    [run_id, session.user_id, session.session_id, JSON.stringify(job), Date.now()],
  );
  await cx.engine.createRun(SYNTHESIS_GRAPH, { run_id, input: { job: job as unknown as Json } });
  if (!cx.deferBackground) runInBackground(cx, session.user_id, run_id);
  return run_id;
}

/**
 * Finishes profile updates a stopped process left queued: creates the engine run if the process
 * died before it did, else continues it (the engine's lease decides who may). Returns how many.
 */
export async function resumeProfileUpdates(cx: AgentContext, limit = 100): Promise<number> {
  const rows = await cx.store.all<{ run_id: string; user_id: string; job: string }>(
    "SELECT run_id, user_id, job FROM user_profile_updates WHERE status = 'queued' ORDER BY created_at LIMIT ?",
    [limit],
  );
  for (const r of rows) {
    const exists = await cx.engine.getRun(r.run_id, { max_chars: 2000 }).then(
      () => true,
      (err: { code?: string }) => {
        if (err.code === 'UNKNOWN_RUN') return false;
        throw err;
      },
    );
    // The process died between recording the job and creating its run: create it now.
    if (!exists)
      await cx.engine.createRun(SYNTHESIS_GRAPH, { run_id: r.run_id, input: { job: JSON.parse(r.job) } });
    runInBackground(cx, r.user_id, r.run_id);
  }
  return rows.length;
}
