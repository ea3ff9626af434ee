/**
 * TEMPORARY STUB of the coordinator's long-term memory front door (same API), so the agent runtime
 * can be built before it lands on main. Replaced wholesale by `git merge main`.
 */
import type { Migration } from '../../store/migrations.ts';
import type { Queryable } from '../../store/store.ts';

export type MemoryScopeKind = 'user' | 'agent' | 'flowchart';

export interface MemoryRecord {
  memory_id: number;
  scope_kind: MemoryScopeKind;
  scope_id: string;
  kind: string;
  text: string;
  meta: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}

export const longTermStubMigrations: Migration[] = [
  {
    id: 699,
    name: 'long-term memory stub',
    up: (d) => [
      `CREATE TABLE lt_stub (
         memory_id ${d.autoId},
         scope_kind TEXT NOT NULL, scope_id TEXT NOT NULL, kind TEXT NOT NULL, text TEXT NOT NULL,
         meta TEXT NOT NULL, created_at TEXT NOT NULL, updated_at TEXT NOT NULL
       )`,
    ],
  },
];

type Row = Omit<MemoryRecord, 'meta'> & { meta: string };
const rec = (r: Row): MemoryRecord => ({ ...r, memory_id: Number(r.memory_id), meta: JSON.parse(r.meta) });

export async function addMemory(
  db: Queryable,
  input: {
    scope_kind: MemoryScopeKind;
    scope_id: string;
    text: string;
    kind?: string;
    meta?: Record<string, unknown>;
    store_mode?: 'append' | 'replace';
    memory_id?: number;
  },
): Promise<{ memory: MemoryRecord; operation: 'created' | 'replaced' }> {
  const now = new Date().toISOString();
  const row = await db.get<Row>(
    `INSERT INTO lt_stub (scope_kind, scope_id, kind, text, meta, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *`,
    [
      input.scope_kind,
      input.scope_id,
      input.kind ?? 'note',
      input.text,
      JSON.stringify(input.meta ?? {}),
      now,
      now,
    ],
  );
  return { memory: rec(row!), operation: 'created' };
}

export async function retrieveMemories(
  db: Queryable,
  q: { scope_kind?: MemoryScopeKind; scope_id?: string; query_text?: string; kind?: string; limit?: number },
): Promise<{ items: Array<MemoryRecord & { score: number }> }> {
  const rows = await db.all<Row>(
    'SELECT * FROM lt_stub WHERE scope_kind = ? AND scope_id = ? ORDER BY memory_id DESC LIMIT ?',
    [q.scope_kind ?? 'user', q.scope_id ?? '', Math.min(50, Math.max(1, q.limit ?? 10))],
  );
  return { items: rows.map((r) => ({ ...rec(r), score: 1 })) };
}

export async function getMemory(db: Queryable, memory_id: number): Promise<MemoryRecord | null> {
  const r = await db.get<Row>('SELECT * FROM lt_stub WHERE memory_id = ?', [memory_id]);
  return r ? rec(r) : null;
}

export async function forgetScope(
  db: Queryable,
  s: { scope_kind: MemoryScopeKind; scope_id: string },
): Promise<{ deleted: number }> {
  const r = await db.run('DELETE FROM lt_stub WHERE scope_kind = ? AND scope_id = ?', [
    s.scope_kind,
    s.scope_id,
  ]);
  return { deleted: r.changes };
}
