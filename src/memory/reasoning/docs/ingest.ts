/**
 * Automatic ingestion (single organism invariant): a task mutation event becomes a `trace`
 * entry of its entity's canonical branch, idempotent on the event id.
 */
import type { Transaction } from '../../../store/store.ts';
import { ensureBranch } from '../branches.ts';
import { reasoningRef } from '../targets.ts';
import { recordLastEvent } from '../workspaces.ts';
import { appendEntry, type DocEntry } from './entries.ts';

export interface IngestedEvent {
  event_id: string;
  ts: number;
  type: string;
  /** The plan or task the event is about (its canonical branch receives the entry). */
  target: string;
  payload: Record<string, unknown>;
}

/** Writes the event into `<target>-trace` on the target's branch; a repeated event_id is a no-op. */
export async function ingestEvent(
  tx: Transaction,
  workspace: string,
  event: IngestedEvent,
): Promise<{ inserted: boolean; entry: DocEntry }> {
  const ref = reasoningRef(event.target);
  await ensureBranch(tx, workspace, ref.branch);
  const res = await appendEntry(tx, {
    workspace,
    branch: ref.branch,
    doc: ref.trace_doc,
    kind: 'trace',
    title: event.type,
    format: 'json',
    content: JSON.stringify({
      event_id: event.event_id,
      type: event.type,
      target: event.target,
      ...event.payload,
    }),
    source_event_id: event.event_id,
    ts: event.ts,
  });
  if (res.inserted) await recordLastEvent(tx, workspace, event.event_id, event.ts);
  return res;
}
