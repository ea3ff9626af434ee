/**
 * Bounded reads behind the browser's paged pictures, each one index-backed page: a window of a
 * world's turns (attempts with their patch marks) for the turn timeline, and a page of an attempt's
 * or a run's source invocations in sequence order for the waterfall.
 */
import type { Queryable, SqlValue } from '../../../store/store.ts';
import type { PageCursor } from './paging.ts';

/** An attempt as the timeline draws it: its turn, status, failure and patch marks. */
export interface TimelineAttempt {
  attempt_id: string;
  attempted_turn: number;
  status: string;
  failure: { code?: string; message?: string; subject_entity_id?: string | null } | null;
  patches: Array<{ patch_seq: number; subject_entity_id: string; narration: string }>;
}

export interface TurnWindow {
  /** First and last turn of the window (0 and -1 when the world has no attempts). */
  from: number;
  to: number;
  /** The last turn any attempt reached (the world's head, or one past it while a turn runs or failed). */
  last: number;
  attempts: TimelineAttempt[];
  /** Whether attempts were left out of a window holding more than the per-page bound. */
  truncated: boolean;
}

/** Attempts of one window at most; a window's turns hold more only after hundreds of failed retries. */
const MAX_WINDOW_ATTEMPTS = 500;

/**
 * The window of `size` turns a cursor names: the latest turns by default (or the window holding
 * `around`), the turns before `before`, or those after `after`.
 */
export async function turnWindow(
  q: Queryable,
  world_slug: string,
  cursor: PageCursor,
  size: number,
  around?: number,
): Promise<TurnWindow> {
  const row = await q.get<{ last: unknown }>(
    'SELECT MAX(attempted_turn) AS last FROM world_attempts WHERE world_slug = ?',
    [world_slug],
  );
  const last = row?.last === null || row?.last === undefined ? 0 : Number(row.last);
  if (last === 0) return { from: 0, to: -1, last, attempts: [], truncated: false };
  let from: number;
  let to: number;
  if (cursor.before !== undefined) {
    to = Math.min(cursor.before - 1, last);
    from = Math.max(1, to - size + 1);
  } else if (cursor.after !== undefined) {
    from = Math.max(1, cursor.after + 1);
    to = Math.min(last, from + size - 1);
  } else {
    to = around === undefined ? last : Math.min(last, Math.max(around + Math.floor(size / 2), size));
    from = Math.max(1, to - size + 1);
  }
  if (from > to) return { from, to, last, attempts: [], truncated: false };
  const rows = await q.all<Record<string, unknown>>(
    `SELECT attempt_id, attempted_turn, status, failure_json FROM world_attempts
      WHERE world_slug = ? AND attempted_turn >= ? AND attempted_turn <= ?
      ORDER BY attempted_turn, started_at, attempt_id LIMIT ?`,
    [world_slug, from, to, MAX_WINDOW_ATTEMPTS + 1],
  );
  const kept = rows.slice(0, MAX_WINDOW_ATTEMPTS);
  const attempts: TimelineAttempt[] = kept.map((r) => ({
    attempt_id: String(r.attempt_id),
    attempted_turn: Number(r.attempted_turn),
    status: String(r.status),
    failure: r.failure_json ? (JSON.parse(String(r.failure_json)) as TimelineAttempt['failure']) : null,
    patches: [],
  }));
  const byId = new Map(attempts.map((a) => [a.attempt_id, a]));
  const committed = attempts.filter((a) => a.status === 'committed').map((a) => a.attempt_id);
  if (committed.length > 0) {
    const patches = await q.all<Record<string, unknown>>(
      `SELECT attempt_id, patch_seq, subject_entity_id, narration FROM world_patches
        WHERE attempt_id IN (${committed.map(() => '?').join(', ')}) ORDER BY attempt_id, patch_seq`,
      committed,
    );
    for (const p of patches)
      byId.get(String(p.attempt_id))?.patches.push({
        patch_seq: Number(p.patch_seq),
        subject_entity_id: String(p.subject_entity_id),
        narration: String(p.narration),
      });
  }
  return { from, to, last, attempts, truncated: rows.length > MAX_WINDOW_ATTEMPTS };
}

/** The attempt of a world that committed `turn`, if any. */
export async function committedAttemptId(
  q: Queryable,
  world_slug: string,
  turn: number,
): Promise<string | null> {
  const row = await q.get<{ attempt_id: string }>(
    `SELECT attempt_id FROM world_attempts WHERE world_slug = ? AND attempted_turn = ? AND status = 'committed'`,
    [world_slug, turn],
  );
  return row?.attempt_id ?? null;
}

/** The world's running attempt, if one runs. */
export async function runningAttempt(
  q: Queryable,
  world_slug: string,
): Promise<{ attempt_id: string; attempted_turn: number; run_id: string } | null> {
  const row = await q.get<Record<string, unknown>>(
    `SELECT attempt_id, attempted_turn, run_id FROM world_attempts WHERE world_slug = ? AND status = 'running'`,
    [world_slug],
  );
  return row
    ? {
        attempt_id: String(row.attempt_id),
        attempted_turn: Number(row.attempted_turn),
        run_id: String(row.run_id),
      }
    : null;
}

/** Whose calls a waterfall shows: one world attempt's, or one run's (agent session, flowchart run). */
export type InvocationScope = { attempt_id: string } | { run_id: string };

export interface InvocationPage {
  items: Array<Record<string, unknown>>;
  /** Sequence numbers for the "older" (`before`) and "newer" (`after`) links, null at either end. */
  older: number | null;
  newer: number | null;
}

const WATERFALL_COLUMNS = `source_invocation_id, invocation_seq, run_id, attempt_id, invocation_kind, interface_name,
  workflow_node_id, workflow_subject_entity_id, ambient_source_id, tool_name, parent_source_invocation_id,
  llm_call_id, status, logical_generation_attempt, tool_loop_round, started_at, ended_at, duration_ms`;

const numberOrNull = (v: unknown) => (v === null || v === undefined ? null : Number(v));

/**
 * One page of `size` invocations in sequence order: the first calls by default, those after
 * `after`, or those before `before`. A world run's calls carry its attempt (and are read through
 * it); an agent or flowchart run's calls have none.
 */
export async function invocationPage(
  q: Queryable,
  scope: InvocationScope,
  cursor: PageCursor,
  size: number,
): Promise<InvocationPage> {
  const where = 'attempt_id' in scope ? 'attempt_id = ?' : 'run_id = ? AND attempt_id IS NULL';
  const key: SqlValue = 'attempt_id' in scope ? scope.attempt_id : scope.run_id;
  const page = async (op: '>' | '<', seq: number, order: 'ASC' | 'DESC', limit: number) =>
    q.all<Record<string, unknown>>(
      `SELECT ${WATERFALL_COLUMNS} FROM source_invocations WHERE ${where} AND invocation_seq ${op} ?
        ORDER BY invocation_seq ${order} LIMIT ?`,
      [key, seq, limit],
    );
  const exists = async (op: '<=' | '>=', seq: number) =>
    (await q.get(
      `SELECT 1 AS one FROM source_invocations WHERE ${where} AND invocation_seq ${op} ? LIMIT 1`,
      [key, seq],
    )) !== undefined;
  let rows: Array<Record<string, unknown>>;
  let more: boolean;
  let before: boolean;
  if (cursor.before !== undefined) {
    const got = await page('<', cursor.before, 'DESC', size + 1);
    more = got.length > size;
    rows = got.slice(0, size).reverse();
    before = true;
  } else {
    const after = cursor.after ?? 0;
    const got = await page('>', after, 'ASC', size + 1);
    more = got.length > size;
    rows = got.slice(0, size);
    before = false;
  }
  const items = rows.map((r) => ({
    ...r,
    invocation_seq: Number(r.invocation_seq),
    started_at: Number(r.started_at),
    ended_at: numberOrNull(r.ended_at),
    duration_ms: numberOrNull(r.duration_ms),
    logical_generation_attempt: numberOrNull(r.logical_generation_attempt),
    tool_loop_round: numberOrNull(r.tool_loop_round),
  }));
  const first = items[0]?.invocation_seq;
  const last = items.at(-1)?.invocation_seq;
  if (first === undefined || last === undefined) {
    // An empty page past either end still links back to the calls there are.
    const edge = cursor.before ?? cursor.after;
    return {
      items,
      older: cursor.after !== undefined && edge && (await exists('<=', edge)) ? edge + 1 : null,
      newer: cursor.before !== undefined && edge && (await exists('>=', edge)) ? edge - 1 : null,
    };
  }
  return {
    items,
    older: (before ? more : await exists('<=', first - 1)) ? first : null,
    newer: (before ? await exists('>=', last + 1) : more) ? last : null,
  };
}

/** "1 234 in · 56 out" (a side not reported is left out; null when neither is). */
export function tokenText(
  input: number | null | undefined,
  output: number | null | undefined,
): string | null {
  const parts = [
    typeof input === 'number' ? `${input} in` : '',
    typeof output === 'number' ? `${output} out` : '',
  ].filter(Boolean);
  return parts.length ? parts.join(' · ') : null;
}

/** The facts rows of a usage sum (`LlmUsageSum`, as the runs, attempts, sessions and flowchart runs kinds return it). */
export function usageFacts(usage: unknown): Array<[string, string | number | null]> {
  const u = usage as
    | {
        calls: number;
        tokens: { input: number; output: number; cached: number; reasoning: number };
        not_reported: { input: number; output: number };
        cost: Record<string, number>;
        unpriced: number;
      }
    | null
    | undefined;
  if (!u?.calls) return [['LLM calls', null]];
  const costs = Object.entries(u.cost).map(
    ([currency, amount]) => `${Number(amount.toFixed(6))} ${currency}`,
  );
  const unpriced = u.unpriced ? `${u.unpriced} call${u.unpriced > 1 ? 's' : ''} unpriced` : '';
  return [
    ['LLM calls', u.calls],
    [
      'tokens',
      tokenText(
        u.not_reported.input < u.calls ? u.tokens.input : null,
        u.not_reported.output < u.calls ? u.tokens.output : null,
      ),
    ],
    ['cost', [...costs, unpriced].filter(Boolean).join(' · ') || null],
  ];
}
