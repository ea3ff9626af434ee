/**
 * `graph_checkpoints` (seed 000 "State Persistence for ECS"): when a session's run suspends on an
 * ECS form, its GraphState — channels, frontier and every ExecutionContract — is stored as JSON
 * keyed by session_id. The engine's journal stays the source of truth for resuming; the checkpoint
 * is the seed's inspectable record, the place `/ecs/respond` records the answer, and the key
 * `/ecs/continue` resumes by.
 */
import { NoemaError } from '../../../core/errors.ts';
import type { RunView } from '../../../engine/index.ts';
import type { Queryable } from '../../../store/store.ts';

export interface GraphCheckpoint {
  session_id: string;
  run_id: string;
  contract_id: string;
  /** The serialized GraphState. */
  state: {
    run_id: string;
    graph_hash: string;
    step: number;
    frontier: string[];
    channels: RunView['state'];
    contracts: RunView['contracts'];
  };
  response: unknown;
  created_at: number;
  updated_at: number;
}

export async function writeCheckpoint(
  q: Queryable,
  session_id: string,
  run: RunView,
  contract_id: string,
): Promise<void> {
  const state: GraphCheckpoint['state'] = {
    run_id: run.run_id,
    graph_hash: run.graph_hash,
    step: run.step,
    frontier: run.frontier,
    channels: run.state,
    contracts: run.contracts,
  };
  const now = Date.now();
  await q.run(
    `INSERT INTO graph_checkpoints (session_id, run_id, contract_id, state_json, response_json, created_at, updated_at)
     VALUES (?, ?, ?, ?, NULL, ?, ?)
     ON CONFLICT (session_id) DO UPDATE SET run_id = excluded.run_id, contract_id = excluded.contract_id,
       state_json = excluded.state_json, response_json = NULL, created_at = excluded.created_at, updated_at = excluded.updated_at`,
    [session_id, run.run_id, contract_id, JSON.stringify(state), now, now],
  );
}

export async function findCheckpoint(q: Queryable, session_id: string): Promise<GraphCheckpoint | null> {
  const r = await q.get<{
    run_id: string;
    contract_id: string;
    state_json: string;
    response_json: string | null;
    created_at: number;
    updated_at: number;
  }>('SELECT * FROM graph_checkpoints WHERE session_id = ?', [session_id]);
  if (!r) return null;
  return {
    session_id,
    run_id: r.run_id,
    contract_id: r.contract_id,
    state: JSON.parse(r.state_json),
    response: r.response_json === null ? null : JSON.parse(r.response_json),
    created_at: Number(r.created_at),
    updated_at: Number(r.updated_at),
  };
}

export async function getCheckpointOrThrow(q: Queryable, session_id: string): Promise<GraphCheckpoint> {
  const c = await findCheckpoint(q, session_id);
  if (!c)
    throw new NoemaError('NO_CHECKPOINT', `session ${session_id} is not waiting on an ECS form`, {
      status: 409,
      details: { session_id },
      hint: 'only a session whose status is waiting has a checkpoint',
    });
  return c;
}

/** Records the validated answer; true when the row (still for that contract) was updated. */
export async function recordResponse(
  q: Queryable,
  session_id: string,
  contract_id: string,
  response: unknown,
): Promise<boolean> {
  const r = await q.run(
    'UPDATE graph_checkpoints SET response_json = ?, updated_at = ? WHERE session_id = ? AND contract_id = ?',
    [JSON.stringify(response), Date.now(), session_id, contract_id],
  );
  return r.changes === 1;
}

export async function deleteCheckpoint(q: Queryable, session_id: string, contract_id: string): Promise<void> {
  await q.run('DELETE FROM graph_checkpoints WHERE session_id = ? AND contract_id = ?', [
    session_id,
    contract_id,
  ]);
}

/**
 * Deletes the session's checkpoint of a run that finished (completed or failed): also when the
 * continuation that answered it crashed and another process finished the run.
 */
export async function deleteRunCheckpoint(q: Queryable, session_id: string, run_id: string): Promise<void> {
  await q.run('DELETE FROM graph_checkpoints WHERE session_id = ? AND run_id = ?', [session_id, run_id]);
}
