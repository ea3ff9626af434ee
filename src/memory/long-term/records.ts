/** Long-term memory records: validation, add (append or replace), read one, forget a scope. */
import { createHash } from 'node:crypto';
import { invalidInput, NoemaError } from '../../core/errors.ts';
import type { Queryable } from '../../store/store.ts';

export const MEMORY_SCOPE_KINDS = ['user', 'agent', 'flowchart'] as const;
export type MemoryScopeKind = (typeof MEMORY_SCOPE_KINDS)[number];

export interface MemoryScope {
  scope_kind: MemoryScopeKind;
  scope_id: string;
}

export interface MemoryRecord extends MemoryScope {
  /** A positive integer, allocated by the store. */
  memory_id: number;
  kind: string;
  text: string;
  meta: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

export interface AddMemoryInput extends MemoryScope {
  text: string;
  /** Default `note`. */
  kind?: string;
  meta?: Record<string, unknown>;
  /** `append` (default) adds a record; `replace` rewrites one (below). */
  store_mode?: 'append' | 'replace';
  /** The record `replace` rewrites; default the newest of the same scope and kind (created if none). */
  memory_id?: number;
}

export const MAX_MEMORY_TEXT_CHARS = 32_768;
const MAX_META_CHARS = 16_384;
const MAX_SCOPE_ID_CHARS = 200;
const KIND = /^[a-z][a-z0-9_.-]{0,63}$/;

export type MemoryRow = {
  memory_id: number;
  scope_kind: string;
  scope_id: string;
  kind: string;
  text: string;
  meta_json: string;
  created_at_ms: number;
  updated_at_ms: number;
};

export const MEMORY_COLUMN_NAMES = [
  'memory_id',
  'scope_kind',
  'scope_id',
  'kind',
  'text',
  'meta_json',
  'created_at_ms',
  'updated_at_ms',
] as const;
export const MEMORY_COLUMNS = MEMORY_COLUMN_NAMES.join(', ');

/** One search token per scope (letters and digits only, so full-text indexes keep it whole). */
export function scopeKey(scope: MemoryScope): string {
  return `s${createHash('sha256').update(`${scope.scope_kind}\u0000${scope.scope_id}`).digest('hex').slice(0, 24)}`;
}

export function toRecord(r: MemoryRow): MemoryRecord {
  return {
    memory_id: Number(r.memory_id),
    scope_kind: r.scope_kind as MemoryScopeKind,
    scope_id: r.scope_id,
    kind: r.kind,
    text: r.text,
    meta: JSON.parse(r.meta_json) as Record<string, unknown>,
    created_at: new Date(Number(r.created_at_ms)).toISOString(),
    updated_at: new Date(Number(r.updated_at_ms)).toISOString(),
  };
}

export function checkScope(scope: Partial<MemoryScope>, required: boolean): void {
  if (scope.scope_kind !== undefined || required) {
    if (!MEMORY_SCOPE_KINDS.includes(scope.scope_kind as MemoryScopeKind))
      throw invalidInput(`scope_kind must be one of ${MEMORY_SCOPE_KINDS.join(', ')}`, {
        field: 'scope_kind',
      });
  }
  if (scope.scope_id !== undefined || required) {
    const id = scope.scope_id;
    if (typeof id !== 'string' || id.length === 0 || id.length > MAX_SCOPE_ID_CHARS)
      throw invalidInput(`scope_id must be a string of 1..${MAX_SCOPE_ID_CHARS} characters`, {
        field: 'scope_id',
      });
  }
}

export function checkMemoryId(id: unknown, field = 'memory_id'): number {
  if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 1)
    throw invalidInput(`${field} must be a positive integer`, { field, value: id });
  return id;
}

function checkAdd(input: AddMemoryInput): { kind: string; meta_json: string } {
  checkScope(input, true);
  if (typeof input.text !== 'string' || input.text.trim().length === 0)
    throw invalidInput('text must be a non-empty string', { field: 'text' });
  if (input.text.length > MAX_MEMORY_TEXT_CHARS)
    throw invalidInput(`text is longer than ${MAX_MEMORY_TEXT_CHARS} characters`, {
      field: 'text',
      length: input.text.length,
    });
  const kind = input.kind ?? 'note';
  if (!KIND.test(kind))
    throw invalidInput('kind must be lowercase letters, digits, "_", "." or "-" (at most 64)', {
      field: 'kind',
    });
  const meta = input.meta ?? {};
  if (meta === null || typeof meta !== 'object' || Array.isArray(meta))
    throw invalidInput('meta must be an object', { field: 'meta' });
  const meta_json = JSON.stringify(meta);
  if (meta_json.length > MAX_META_CHARS)
    throw invalidInput(`meta is larger than ${MAX_META_CHARS} characters of JSON`, { field: 'meta' });
  if (input.store_mode !== undefined && input.store_mode !== 'append' && input.store_mode !== 'replace')
    throw invalidInput('store_mode must be "append" or "replace"', { field: 'store_mode' });
  if (input.memory_id !== undefined) checkMemoryId(input.memory_id);
  return { kind, meta_json };
}

/**
 * Stores a memory. `append` adds a record; `replace` rewrites the text and meta of `memory_id` (which
 * must belong to the same scope, else `NOT_FOUND`) or of the newest record of the same scope and kind,
 * creating one when the scope has none. Call it inside a transaction when it must commit with other writes.
 */
export async function addMemory(
  db: Queryable,
  input: AddMemoryInput,
  now: number = Date.now(),
): Promise<{ memory: MemoryRecord; operation: 'created' | 'replaced' }> {
  const { kind, meta_json } = checkAdd(input);
  if (input.store_mode === 'replace') {
    const target =
      input.memory_id !== undefined
        ? await db.get<{ memory_id: number }>(
            'SELECT memory_id FROM long_term_memories WHERE memory_id = ? AND scope_kind = ? AND scope_id = ?',
            [input.memory_id, input.scope_kind, input.scope_id],
          )
        : await db.get<{ memory_id: number }>(
            'SELECT memory_id FROM long_term_memories WHERE scope_kind = ? AND scope_id = ? AND kind = ? ORDER BY memory_id DESC LIMIT 1',
            [input.scope_kind, input.scope_id, kind],
          );
    if (!target && input.memory_id !== undefined)
      throw new NoemaError('NOT_FOUND', `memory ${input.memory_id} does not exist in this scope`, {
        status: 404,
        details: { memory_id: input.memory_id, scope_kind: input.scope_kind, scope_id: input.scope_id },
      });
    if (target) {
      const row = await db.get<MemoryRow>(
        `UPDATE long_term_memories SET text = ?, meta_json = ?, kind = ?, updated_at_ms = ? WHERE memory_id = ? RETURNING ${MEMORY_COLUMNS}`,
        [input.text, meta_json, kind, now, Number(target.memory_id)],
      );
      return { memory: toRecord(row as MemoryRow), operation: 'replaced' };
    }
  }
  const row = await db.get<MemoryRow>(
    `INSERT INTO long_term_memories (scope_kind, scope_id, scope_key, kind, text, meta_json, created_at_ms, updated_at_ms)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING ${MEMORY_COLUMNS}`,
    [input.scope_kind, input.scope_id, scopeKey(input), kind, input.text, meta_json, now, now],
  );
  return { memory: toRecord(row as MemoryRow), operation: 'created' };
}

/** One memory by id, or `null`. */
export async function getMemory(db: Queryable, memory_id: number): Promise<MemoryRecord | null> {
  checkMemoryId(memory_id);
  const row = await db.get<MemoryRow>(
    `SELECT ${MEMORY_COLUMNS} FROM long_term_memories WHERE memory_id = ?`,
    [memory_id],
  );
  return row ? toRecord(row) : null;
}

/** Deletes every memory of a scope (a user forgotten, a flowchart deleted). */
export async function forgetScope(db: Queryable, scope: MemoryScope): Promise<{ deleted: number }> {
  checkScope(scope, true);
  const r = await db.run('DELETE FROM long_term_memories WHERE scope_kind = ? AND scope_id = ?', [
    scope.scope_kind,
    scope.scope_id,
  ]);
  return { deleted: r.changes };
}
