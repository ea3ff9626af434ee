/** Tail pagination over entries (newest first) under a character budget, with honest has_more/truncated. */
import { fitToBudget } from '../../../core/budget.ts';

export interface Pagination {
  cursor: number | null;
  next_cursor?: number;
  has_more: boolean;
  limit: number;
  count: number;
}

/**
 * `items` are the page's entries newest first; `moreBeyond` says whether entries older than the
 * last item exist (or were not scanned). Dropping items to fit `maxChars` sets `truncated`, keeps
 * the newest, and points `next_cursor` at the oldest kept one so the caller can continue.
 */
export function fitPage<T extends { seq: number }>(opts: {
  items: T[];
  cursor: number | null;
  limit: number;
  moreBeyond: boolean;
  /** Where to resume when no item is returned but more may exist (e.g. a scan budget ran out). */
  resumeAt?: number;
  maxChars: number;
  build: (items: T[], pagination: Pagination, truncated: boolean) => Record<string, unknown>;
}): { value: Record<string, unknown>; truncated: boolean } {
  const { items, cursor, limit, moreBeyond, maxChars, build, resumeAt } = opts;
  const pageOf = (kept: T[], truncated: boolean): Pagination => {
    const dropped = kept.length < items.length;
    const has_more = moreBeyond || (truncated && dropped);
    const p: Pagination = { cursor, has_more, limit, count: kept.length };
    if (has_more) {
      const last = kept.at(-1);
      const firstDropped = items[kept.length];
      if (dropped) p.next_cursor = last ? last.seq : (firstDropped as T).seq + 1;
      else if (resumeAt !== undefined) p.next_cursor = resumeAt;
      else if (last) p.next_cursor = last.seq;
      else if (cursor !== null) p.next_cursor = cursor;
    }
    return p;
  };
  const fit = fitToBudget({
    items,
    maxChars,
    dropFrom: 'end',
    build: (kept, truncated) => build(kept, pageOf(kept, truncated), truncated),
  });
  return { value: fit.value as Record<string, unknown>, truncated: fit.truncated };
}
