/**
 * Document entries: the append-only rows of notes/trace docs, their public shape, and the one
 * write primitive (idempotent on `source_event_id` per (workspace, branch, doc)).
 */
import type { Queryable, Transaction } from '../../../store/store.ts';
import { allocateSeq } from '../seq.ts';

/** An entry as tools return it. */
export interface DocEntry {
  seq: number;
  ts: number;
  branch: string;
  doc: string;
  kind: string;
  title?: string;
  format?: string;
  meta?: Record<string, unknown>;
  content: string;
  source_event_id?: string;
}

export type EntryRow = {
  seq: number;
  ts: number;
  branch: string;
  doc: string;
  kind: string;
  title: string | null;
  format: string | null;
  meta: string | null;
  content: string;
  source_event_id: string | null;
  origin_seq: number;
};

export const ENTRY_COLUMNS =
  'seq, ts, branch, doc, kind, title, format, meta, content, source_event_id, origin_seq';

export interface NewEntry {
  workspace: string;
  branch: string;
  doc: string;
  kind: string;
  content: string;
  title?: string;
  format?: string;
  meta?: Record<string, unknown>;
  /** Makes the write idempotent: a second write with the same id to the same (branch, doc) is a no-op. */
  source_event_id?: string;
  /** For merge copies: the origin_seq of the entry copied (defaults to the new entry's own seq). */
  origin_seq?: number;
  ts?: number;
}

/** Normalizes a stored row (BIGINT/TEXT JSON) into its public shape. */
export function toDocEntry(row: EntryRow): DocEntry {
  const e: DocEntry = {
    seq: Number(row.seq),
    ts: Number(row.ts),
    branch: row.branch,
    doc: row.doc,
    kind: row.kind,
    content: row.content,
  };
  if (row.title !== null && row.title !== undefined) e.title = row.title;
  if (row.format !== null && row.format !== undefined) e.format = row.format;
  if (row.meta !== null && row.meta !== undefined) e.meta = JSON.parse(row.meta) as Record<string, unknown>;
  if (row.source_event_id !== null && row.source_event_id !== undefined)
    e.source_event_id = row.source_event_id;
  return e;
}

/**
 * Appends one entry (allocating the next global seq). With `source_event_id`, returns
 * `{ inserted: false, entry: <existing> }` when that event was already written to the doc.
 */
export async function appendEntry(
  tx: Transaction,
  e: NewEntry,
): Promise<{ inserted: boolean; entry: DocEntry }> {
  if (e.source_event_id !== undefined) {
    const existing = await findBySourceEvent(tx, e.workspace, e.branch, e.doc, e.source_event_id);
    if (existing) return { inserted: false, entry: existing };
  }
  const seq = await allocateSeq(tx, e.workspace, 1);
  const ts = e.ts ?? Date.now();
  // ON CONFLICT covers a concurrent writer of the same source_event_id (PG): the loser keeps the winner's row.
  const row = await tx.get<{ seq: number }>(
    `INSERT INTO doc_entries (seq, ts, workspace, branch, doc, kind, title, format, meta, content, source_event_id, origin_seq)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (workspace, branch, doc, source_event_id) DO NOTHING RETURNING seq`,
    [
      seq,
      ts,
      e.workspace,
      e.branch,
      e.doc,
      e.kind,
      e.title ?? null,
      e.format ?? null,
      e.meta === undefined ? null : JSON.stringify(e.meta),
      e.content,
      e.source_event_id ?? null,
      e.origin_seq ?? seq,
    ],
  );
  if (!row && e.source_event_id !== undefined) {
    const existing = await findBySourceEvent(tx, e.workspace, e.branch, e.doc, e.source_event_id);
    if (existing) return { inserted: false, entry: existing };
  }
  const entry: DocEntry = { seq, ts, branch: e.branch, doc: e.doc, kind: e.kind, content: e.content };
  if (e.title !== undefined) entry.title = e.title;
  if (e.format !== undefined) entry.format = e.format;
  if (e.meta !== undefined) entry.meta = e.meta;
  if (e.source_event_id !== undefined) entry.source_event_id = e.source_event_id;
  return { inserted: true, entry };
}

export async function findBySourceEvent(
  q: Queryable,
  workspace: string,
  branch: string,
  doc: string,
  sourceEventId: string,
): Promise<DocEntry | undefined> {
  const row = await q.get<EntryRow>(
    `SELECT ${ENTRY_COLUMNS} FROM doc_entries WHERE workspace = ? AND branch = ? AND doc = ? AND source_event_id = ?`,
    [workspace, branch, doc, sourceEventId],
  );
  return row ? toDocEntry(row) : undefined;
}
