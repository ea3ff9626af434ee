/**
 * Pages of stored definitions for browsing: response sources and JSON schemas as summaries,
 * keyset-paginated by content hash (the primary key), so a page costs one index range.
 */
import type { Queryable, SqlValue } from '../store/store.ts';

export interface DocumentPage<T> {
  items: T[];
  next_cursor: string | null;
}

export interface DocumentFilter {
  /** Hashes after this one (the previous page's `next_cursor`). */
  cursor?: string;
  limit: number;
  interface_name?: string;
}

async function page<T extends { hash: string }>(
  q: Queryable,
  sql: (where: string) => string,
  filter: DocumentFilter,
  extra: Array<[string, SqlValue]>,
  map: (row: Record<string, unknown>) => T,
): Promise<DocumentPage<T>> {
  const where: string[] = [];
  const params: SqlValue[] = [];
  for (const [clause, value] of extra) {
    where.push(clause);
    params.push(value);
  }
  if (filter.cursor !== undefined) {
    where.push('hash > ?');
    params.push(filter.cursor);
  }
  const rows = await q.all<Record<string, unknown>>(sql(where.length ? `WHERE ${where.join(' AND ')}` : ''), [
    ...params,
    filter.limit + 1,
  ]);
  const items = rows.slice(0, filter.limit).map(map);
  return { items, next_cursor: rows.length > filter.limit ? (items.at(-1)?.hash ?? null) : null };
}

export function listResponseSources(q: Queryable, filter: DocumentFilter) {
  return page(
    q,
    (where) =>
      `SELECT hash, interface_name, label, created_at FROM response_sources ${where} ORDER BY hash LIMIT ?`,
    filter,
    filter.interface_name === undefined ? [] : [['interface_name = ?', filter.interface_name]],
    (r) => ({
      hash: String(r.hash),
      interface_name: String(r.interface_name),
      label: (r.label as string | null) ?? null,
      created_at: new Date(Number(r.created_at)).toISOString(),
    }),
  );
}

export function listJsonSchemas(q: Queryable, filter: DocumentFilter) {
  return page(
    q,
    (where) => `SELECT hash, created_at FROM json_schemas ${where} ORDER BY hash LIMIT ?`,
    filter,
    [],
    (r) => ({ hash: String(r.hash), created_at: new Date(Number(r.created_at)).toISOString() }),
  );
}
