/**
 * Retrieval: one memory by id, the newest of a scope, or full-text matches ranked by relevance and
 * recency. The full-text candidates are the newest matching rows (at most CANDIDATE_WINDOW), ranked
 * among themselves, so the cost of a query is flat as the store grows.
 */
import { invalidInput } from '../../core/errors.ts';
import type { SqlValue, Store, Transaction } from '../../store/store.ts';
import { bm25 } from './rank.ts';
import {
  checkMemoryId,
  checkScope,
  MEMORY_COLUMN_NAMES,
  MEMORY_COLUMNS,
  type MemoryRecord,
  type MemoryRow,
  type MemoryScopeKind,
  scopeKey,
  toRecord,
} from './records.ts';

export interface RetrieveInput {
  scope_kind?: MemoryScopeKind;
  scope_id?: string;
  query_text?: string;
  memory_id?: number;
  kind?: string;
  /** Clamped to 1..50; default 10. */
  limit?: number;
}

export type RetrievedMemory = MemoryRecord & { score: number };

export const MAX_RETRIEVE_LIMIT = 50;
/** How many of the newest matching rows a full-text query ranks (the answer is the best among them). */
export const CANDIDATE_WINDOW = 100;
/** Recency half-life of the score (30 days). */
const HALF_LIFE_MS = 30 * 24 * 3600 * 1000;

export function clampLimit(limit: number | undefined): number {
  if (limit === undefined) return 10;
  if (typeof limit !== 'number' || !Number.isFinite(limit))
    throw invalidInput('limit must be a number', { field: 'limit' });
  return Math.min(MAX_RETRIEVE_LIMIT, Math.max(1, Math.trunc(limit)));
}

export async function retrieveMemories(
  db: Store | Transaction,
  input: RetrieveInput,
  now: number = Date.now(),
): Promise<{ items: RetrievedMemory[] }> {
  checkScope(input, false);
  if (input.scope_id !== undefined && input.scope_kind === undefined)
    throw invalidInput('scope_id needs scope_kind', { field: 'scope_kind' });
  if (input.query_text !== undefined && typeof input.query_text !== 'string')
    throw invalidInput('query_text must be a string', { field: 'query_text' });
  if (input.kind !== undefined && typeof input.kind !== 'string')
    throw invalidInput('kind must be a string', { field: 'kind' });
  const limit = clampLimit(input.limit);
  const inScope = (r: MemoryRow): boolean =>
    input.scope_id === undefined || (r.scope_kind === input.scope_kind && r.scope_id === input.scope_id);
  const where: string[] = [];
  const params: SqlValue[] = [];
  const filters: Record<string, string> = {};
  if (input.scope_kind !== undefined && input.scope_id !== undefined) {
    // A whole scope is found by its key alone: the (scope_key, memory_id) index reads it newest first
    // and stops at the limit. Comparing kind and id in SQL too would let PostgreSQL AND two indexes'
    // bitmaps (or, in a generic plan, guess one row) and sort the whole scope: 15–19 ms at 1M. The key
    // is a 96-bit hash of both; `inScope` still checks every row exactly.
    // With a kind, the (scope_kind, scope_id, kind, memory_id) index is the one that stops at the limit.
    filters.scope_key = scopeKey({ scope_kind: input.scope_kind, scope_id: input.scope_id });
    if (input.kind === undefined) {
      where.push('scope_key = ?');
      params.push(filters.scope_key);
    } else {
      where.push('scope_kind = ?', 'scope_id = ?');
      params.push(input.scope_kind, input.scope_id);
    }
  } else if (input.scope_kind !== undefined) {
    where.push('scope_kind = ?');
    params.push(input.scope_kind);
  }
  if (input.kind !== undefined) {
    where.push('kind = ?');
    params.push(input.kind);
  }

  if (input.memory_id !== undefined) {
    const id = checkMemoryId(input.memory_id);
    const row = await db.get<MemoryRow>(
      `SELECT ${MEMORY_COLUMNS} FROM long_term_memories WHERE memory_id = ?${where.map((w) => ` AND ${w}`).join('')}`,
      [id, ...params],
    );
    return { items: row && inScope(row) ? [{ ...toRecord(row), score: 1 }] : [] };
  }

  const match =
    input.query_text === undefined
      ? null
      : db.dialect.fullText.matchQuery({
          table: 'long_term_memories',
          id: 'memory_id',
          column: 'text',
          text: input.query_text,
          filters,
          limit: CANDIDATE_WINDOW,
          columns: MEMORY_COLUMN_NAMES,
        });
  if (match === null) {
    // No query (or no searchable word in it): the newest memories of the scope.
    const rows = await db.all<MemoryRow>(
      `SELECT ${MEMORY_COLUMNS} FROM long_term_memories${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY memory_id DESC LIMIT ?`,
      [...params, limit],
    );
    return {
      items: rows
        .filter(inScope)
        .map((r) => ({ ...toRecord(r), score: recency(Number(r.updated_at_ms), now) })),
    };
  }
  // A kind-only scope (every user) or a memory kind narrows the candidates after the search.
  const outer: string[] = [];
  const outerParams: SqlValue[] = [];
  if (input.scope_kind !== undefined && input.scope_id === undefined) {
    outer.push('scope_kind = ?');
    outerParams.push(input.scope_kind);
  }
  if (input.kind !== undefined) {
    outer.push('kind = ?');
    outerParams.push(input.kind);
  }
  const found = await db.all<MemoryRow>(
    outer.length === 0 ? match.sql : `SELECT * FROM (${match.sql}) m WHERE ${outer.join(' AND ')}`,
    [...match.params, ...outerParams],
  );
  const rows = found.filter(inScope);
  if (rows.length === 0) return { items: [] };
  const relevance = bm25(
    [input.query_text ?? ''],
    rows.map((r) => r.text),
  );
  const top = Math.max(...relevance, Number.MIN_VALUE);
  const scored = rows.map((r, i) => ({
    r,
    memory_id: Number(r.memory_id),
    // Relevance normalised to the best candidate, weighted by recency: 70% relevance, 30% recency.
    score: round(0.7 * ((relevance[i] as number) / top) + 0.3 * recency(Number(r.updated_at_ms), now)),
  }));
  scored.sort((a, b) => b.score - a.score || b.memory_id - a.memory_id);
  // Only the memories returned are decoded (their meta parsed, their times formatted), not every candidate.
  return { items: scored.slice(0, limit).map(({ r, score }) => ({ ...toRecord(r), score })) };
}

function recency(at: number, now: number): number {
  return round(0.5 ** (Math.max(0, now - at) / HALF_LIFE_MS));
}

function round(x: number): number {
  return Math.round(x * 1e6) / 1e6;
}
