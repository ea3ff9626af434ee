/**
 * Read models of a world's history: attempts (with their patches, transitions and source
 * invocations) and audit events — transitions under the seed's names, `state_before` / `state_after`,
 * whatever names their rows hold. Every list is bounded.
 */
import { invalidInput } from '../../core/errors.ts';
import type { Queryable } from '../../store/store.ts';
import { getAttemptRow, listAttemptRows } from './attempts.ts';
import { getWorldRow } from './state.ts';
import { readTransition, type Transition } from './world-patch.ts';

function clampLimit(limit: number | undefined, def: number, max: number): number {
  const n = limit ?? def;
  if (!Number.isInteger(n) || n < 1 || n > max)
    throw invalidInput(`limit must be an integer from 1 to ${max}`, { limit });
  return n;
}

export async function listAttempts(q: Queryable, input: { world_slug: string; limit?: number }) {
  await getWorldRow(q, input.world_slug);
  const limit = clampLimit(input.limit, 50, 200);
  const rows = await listAttemptRows(q, input.world_slug, limit + 1);
  return { world_slug: input.world_slug, items: rows.slice(0, limit), truncated: rows.length > limit };
}

/** Worlds, newest first; `cursor` is the previous page's next_cursor (`created_at:slug`). */
export async function listWorlds(
  q: Queryable,
  input: { limit?: number; cursor?: string; scenario_hash?: string },
) {
  const limit = clampLimit(input.limit, 50, 200);
  const conds: string[] = [];
  const params: Array<string | number> = [];
  if (input.scenario_hash !== undefined) {
    conds.push('scenario_hash = ?');
    params.push(input.scenario_hash);
  }
  if (input.cursor !== undefined) {
    const m = /^(\d+):(.+)$/.exec(input.cursor);
    if (!m) throw invalidInput('cursor is not a next_cursor from this listing', { cursor: input.cursor });
    conds.push('(created_at < ? OR (created_at = ? AND world_slug < ?))');
    params.push(Number(m[1]), Number(m[1]), m[2]!);
  }
  const rows = await q.all<Record<string, unknown>>(
    `SELECT world_slug, scenario_hash, parent_world_slug, fork_turn, head_turn, created_at FROM worlds
     ${conds.length ? `WHERE ${conds.join(' AND ')}` : ''} ORDER BY created_at DESC, world_slug DESC LIMIT ?`,
    [...params, limit + 1],
  );
  const items = rows.slice(0, limit).map((r) => ({
    world_slug: r.world_slug as string,
    scenario_hash: r.scenario_hash as string,
    parent_world_slug: (r.parent_world_slug as string | null) ?? null,
    fork_turn: r.fork_turn === null ? null : Number(r.fork_turn),
    head_turn: Number(r.head_turn),
    created_at: Number(r.created_at),
  }));
  const last = items.at(-1);
  return { items, next_cursor: rows.length > limit && last ? `${last.created_at}:${last.world_slug}` : null };
}

/** Attempts across worlds (or of one), newest first; cursor `started_at:attempt_id`. */
export async function listAllAttempts(
  q: Queryable,
  input: { limit?: number; cursor?: string; world_slug?: string; status?: string },
) {
  const limit = clampLimit(input.limit, 50, 200);
  const conds: string[] = [];
  const params: Array<string | number> = [];
  for (const k of ['world_slug', 'status'] as const) {
    if (input[k] !== undefined) {
      conds.push(`${k} = ?`);
      params.push(input[k]!);
    }
  }
  if (input.cursor !== undefined) {
    const m = /^(\d+):(.+)$/.exec(input.cursor);
    if (!m) throw invalidInput('cursor is not a next_cursor from this listing', { cursor: input.cursor });
    conds.push('(started_at < ? OR (started_at = ? AND attempt_id < ?))');
    params.push(Number(m[1]), Number(m[1]), m[2]!);
  }
  const rows = await q.all<Record<string, unknown>>(
    `SELECT attempt_id, world_slug, attempted_turn, status, source_invocation_count, started_at, ended_at FROM world_attempts
     ${conds.length ? `WHERE ${conds.join(' AND ')}` : ''} ORDER BY started_at DESC, attempt_id DESC LIMIT ?`,
    [...params, limit + 1],
  );
  const items = rows.slice(0, limit).map((r) => ({
    attempt_id: r.attempt_id as string,
    world_slug: r.world_slug as string,
    attempted_turn: Number(r.attempted_turn),
    status: r.status as string,
    source_invocation_count: Number(r.source_invocation_count),
    started_at: Number(r.started_at),
    ended_at: r.ended_at === null ? null : Number(r.ended_at),
  }));
  const last = items.at(-1);
  return { items, next_cursor: rows.length > limit && last ? `${last.started_at}:${last.attempt_id}` : null };
}

/** A patch's stored transitions, under the seed's names whatever names the row holds. */
const transitionsOf = (json: string): Transition[] => (JSON.parse(json) as unknown[]).map(readTransition);

export async function attemptPatches(q: Queryable, attempt_id: string) {
  const rows = await q.all<Record<string, unknown>>(
    'SELECT * FROM world_patches WHERE attempt_id = ? ORDER BY patch_seq',
    [attempt_id],
  );
  return rows.map((r) => ({
    patch_seq: Number(r.patch_seq),
    subject_entity_id: r.subject_entity_id as string,
    workflow_hash: r.workflow_hash as string,
    workflow_node_id: r.workflow_node_id as string,
    source_invocation_id: r.source_invocation_id as string | null,
    narration: r.narration as string,
    effects: JSON.parse(r.effects_json as string) as unknown[],
    transitions: transitionsOf(r.transitions_json as string),
    links: {
      workflow: `/cognition-workflows/hash/${r.workflow_hash as string}`,
      ...(r.source_invocation_id
        ? { source_invocation: `/source-invocations/${r.source_invocation_id as string}` }
        : {}),
      subject: `/worlds/${encodeURIComponent(r.world_slug as string)}/turns/${Number(r.turn)}`,
    },
  }));
}

/** The attempt with its patches (and transitions), its source invocations in order, and links. */
export async function getAttempt(q: Queryable, input: { attempt_id: string }) {
  const a = await getAttemptRow(q, input.attempt_id);
  const invocations = await q.all<Record<string, unknown>>(
    `SELECT source_invocation_id, invocation_seq, invocation_kind, workflow_node_id, workflow_subject_entity_id,
       ambient_source_id, tool_name, parent_source_invocation_id, llm_call_id, source_hash, status, failure_class,
       failure_message, logical_generation_attempt, tool_loop_round, model_output_kind, started_at, duration_ms
     FROM source_invocations WHERE attempt_id = ? ORDER BY invocation_seq LIMIT 1000`,
    [a.attempt_id],
  );
  return {
    ...a,
    patches: await attemptPatches(q, a.attempt_id),
    source_invocations: invocations.map((r): Record<string, unknown> & { source_invocation_id: string } => ({
      source_invocation_id: r.source_invocation_id as string,
      ...r,
      invocation_seq: Number(r.invocation_seq),
      started_at: Number(r.started_at),
      duration_ms: r.duration_ms === null ? null : Number(r.duration_ms),
      logical_generation_attempt:
        r.logical_generation_attempt === null ? null : Number(r.logical_generation_attempt),
      tool_loop_round: r.tool_loop_round === null ? null : Number(r.tool_loop_round),
    })),
    links: {
      world: `/worlds/${a.world_slug}`,
      source_invocations: `/attempts/${a.attempt_id}/source-invocations`,
    },
  };
}

export async function listAuditEvents(
  q: Queryable,
  input: { world_slug: string; turn?: number; attempt_id?: string; limit?: number; cursor?: number },
) {
  await getWorldRow(q, input.world_slug);
  const limit = clampLimit(input.limit, 100, 500);
  const where = ['e.world_slug = ?'];
  const params: Array<string | number> = [input.world_slug];
  if (input.turn !== undefined) {
    where.push('e.turn = ?');
    params.push(input.turn);
  }
  if (input.attempt_id !== undefined) {
    where.push('e.attempt_id = ?');
    params.push(input.attempt_id);
  }
  if (input.cursor !== undefined) {
    where.push('e.event_id > ?');
    params.push(input.cursor);
  }
  // A world_patch_applied event's transitions are its patch's (stored once, with the patch).
  const rows = await q.all<Record<string, unknown>>(
    `SELECT e.*, p.transitions_json FROM world_audit_events e
     LEFT JOIN world_patches p ON p.attempt_id = e.attempt_id AND p.patch_seq = e.patch_seq
     WHERE ${where.join(' AND ')} ORDER BY e.event_id LIMIT ?`,
    [...params, limit + 1],
  );
  const items = rows.slice(0, limit).map((r) => ({
    event_id: Number(r.event_id),
    world_slug: r.world_slug,
    turn: Number(r.turn),
    attempt_id: r.attempt_id,
    event_type: r.event_type,
    patch_seq: r.patch_seq === null ? null : Number(r.patch_seq),
    workflow_subject_entity_id: r.workflow_subject_entity_id ?? null,
    source_invocation_id: r.source_invocation_id ?? null,
    cognition_workflow_hash: r.cognition_workflow_hash ?? null,
    response_source_hash: r.response_source_hash ?? null,
    workflow_node_id: r.workflow_node_id ?? null,
    touched: JSON.parse(r.touched_json as string) as unknown[],
    ...(typeof r.transitions_json === 'string' ? { transitions: transitionsOf(r.transitions_json) } : {}),
    data: JSON.parse(r.data_json as string) as unknown,
    created_at: Number(r.created_at),
  }));
  const more = rows.length > limit;
  return { items, next_cursor: more ? (items.at(-1)?.event_id ?? null) : null, truncated: more };
}
