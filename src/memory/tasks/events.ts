/**
 * The task event stream: every mutating tasks_* call emits exactly one event (with event_id) and,
 * in the same transaction, ingests it as a trace entry of the entity's canonical branch.
 */
import { uuidv7 } from '../../core/ids.ts';
import type { Queryable, Transaction } from '../../store/store.ts';
import { ingestEvent } from '../reasoning/docs/ingest.ts';
import { nextCounter } from './store-ops.ts';

export interface TaskEvent {
  event_id: string;
  n: number;
  ts: number;
  type: string;
  target: string;
  payload: Record<string, unknown>;
}

/** Records the event and its trace entry (call under lockWorkspace, inside the mutation's transaction). */
export async function emitEvent(
  tx: Transaction,
  workspace: string,
  type: string,
  target: string,
  payload: Record<string, unknown>,
): Promise<TaskEvent> {
  const event: TaskEvent = {
    event_id: uuidv7(),
    n: await nextCounter(tx, workspace, 'event'),
    ts: Date.now(),
    type,
    target,
    payload,
  };
  await tx.run(
    'INSERT INTO task_events (workspace, n, event_id, ts, type, target, payload) VALUES (?, ?, ?, ?, ?, ?, ?)',
    [workspace, event.n, event.event_id, event.ts, type, target, JSON.stringify(payload)],
  );
  await ingestEvent(tx, workspace, { event_id: event.event_id, ts: event.ts, type, target, payload });
  return event;
}

type RawEvent = { n: number; event_id: string; ts: number; type: string; target: string; payload: string };

export async function eventsAfter(
  q: Queryable,
  workspace: string,
  after: number,
  limit: number,
): Promise<TaskEvent[]> {
  const rows = await q.all<RawEvent>(
    'SELECT n, event_id, ts, type, target, payload FROM task_events WHERE workspace = ? AND n > ? ORDER BY n LIMIT ?',
    [workspace, after, limit],
  );
  return rows.map((r) => ({
    event_id: r.event_id,
    n: Number(r.n),
    ts: Number(r.ts),
    type: r.type,
    target: r.target,
    payload: JSON.parse(r.payload) as Record<string, unknown>,
  }));
}

/**
 * Re-ingests recorded events into their trace docs (repair after a partial restore). Idempotent:
 * events already ingested are skipped by their event_id. Returns how many entries were written.
 */
export async function reingestEvents(
  tx: Transaction,
  workspace: string,
  after: number,
  limit: number,
): Promise<number> {
  let written = 0;
  for (const e of await eventsAfter(tx, workspace, after, limit)) {
    const res = await ingestEvent(tx, workspace, {
      event_id: e.event_id,
      ts: e.ts,
      type: e.type,
      target: e.target,
      payload: e.payload,
    });
    if (res.inserted) written += 1;
  }
  return written;
}
