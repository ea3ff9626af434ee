/**
 * Full-text search across what was said — LLM prompts and answers, agent session messages, world
 * narrations (`search_texts`, filled by row triggers) — through the store's full-text primitive:
 * rows holding every word of the query, newest first, a bounded page at a time.
 */
import { invalidInput } from '../../../core/errors.ts';
import { type Queryable, searchWords } from '../../../store/store.ts';

/** Longest query accepted, in characters. */
export const SEARCH_QUERY_MAX = 200;
/** Hits per page. */
export const SEARCH_PAGE = 20;
export const SEARCH_KINDS = ['prompt', 'answer', 'message', 'narration'] as const;
export type SearchKind = (typeof SEARCH_KINDS)[number];

/** Rows holding any query word read per batch, and batches read per page at most (the bound on a page's cost). */
const CANDIDATES = 100;
const BATCHES = 4;
/** Characters of context shown each side of the first matching word. */
const AROUND = 90;

export interface SearchHit {
  search_id: number;
  kind: SearchKind;
  /** The LLM call (prompt, answer), the session (message) or the world (narration). */
  ref_id: string;
  /** The world turn (prompt, answer of a world call; narration) or the message's number. */
  ref_seq: number | null;
  /** The world (prompt, answer), the role (message) or the subject entity (narration). */
  context: string | null;
  at: number | null;
  /** Up to ~180 characters around the first matching word. */
  snippet: string;
}

export interface SearchPage {
  q: string;
  kind: SearchKind | null;
  items: SearchHit[];
  /** `before` of the next (older) page, or null when every match was listed. */
  next: number | null;
}

export interface SearchInput {
  q: string;
  kind?: string | null | undefined;
  before?: string | null | undefined;
}

/** The query's checks, as typed errors naming the field refused. */
export function checkSearch(input: SearchInput): {
  q: string;
  kind: SearchKind | null;
  before: number | undefined;
} {
  const q = input.q.trim();
  if (q.length > SEARCH_QUERY_MAX)
    throw invalidInput(
      `the search text is ${q.length} characters long; at most ${SEARCH_QUERY_MAX} are searched`,
      {
        details: { field: 'q', max: SEARCH_QUERY_MAX, length: q.length },
      },
    );
  if (searchWords(q).length === 0)
    throw invalidInput('the search text has no word to look for (letters or digits)', {
      details: { field: 'q' },
    });
  const kind = input.kind ? input.kind : null;
  if (kind !== null && !(SEARCH_KINDS as readonly string[]).includes(kind))
    throw invalidInput(`unknown kind ${kind} (one of ${SEARCH_KINDS.join(', ')})`, {
      details: { field: 'kind' },
    });
  let before: number | undefined;
  if (input.before) {
    if (!/^[1-9]\d{0,15}$/.test(input.before))
      throw invalidInput('before must be a positive integer (the next page link gives it)', {
        details: { field: 'before' },
      });
    before = Number(input.before);
  }
  return { q, kind: kind as SearchKind | null, before };
}

type Row = {
  search_id: number;
  kind: SearchKind;
  ref_id: string;
  ref_seq: number | null;
  context: string | null;
  text: string;
  at: number | null;
};

export function snippetOf(text: string, words: readonly string[]): string {
  const lower = text.toLowerCase();
  const hits = words.map((w) =>
    lower.search(new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(w)}(?![\\p{L}\\p{N}])`, 'u')),
  );
  const at = Math.min(...hits.filter((i) => i >= 0), text.length);
  const start = Math.max(0, at - AROUND);
  const end = Math.min(text.length, at + AROUND);
  return `${start > 0 ? '…' : ''}${text.slice(start, end).replace(/\s+/g, ' ')}${end < text.length ? '…' : ''}`;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** One page of hits for `input`, newest first; INVALID_INPUT for a query that cannot be searched. */
export async function searchTexts(db: Queryable, input: SearchInput): Promise<SearchPage> {
  const { q, kind, before } = checkSearch(input);
  const words = searchWords(q);
  const items: SearchHit[] = [];
  // The copies written since the index's last batch (migration 811), indexed before the search.
  for (const sql of db.dialect.fullText.catchUpSql('search_texts', 'search_id', 'text')) await db.run(sql);
  let cursor = before;
  for (let batch = 0; batch < BATCHES; batch++) {
    const match = db.dialect.fullText.matchQuery({
      table: 'search_texts',
      id: 'search_id',
      column: 'text',
      text: q,
      filters: kind ? { kind } : {},
      limit: CANDIDATES,
      ...(cursor !== undefined ? { before: cursor } : {}),
    });
    if (!match) break;
    const ids = (await db.all<{ id: number }>(match.sql, match.params)).map((r) => Number(r.id));
    if (ids.length === 0) return { q, kind, items, next: null };
    ids.sort((a, b) => b - a);
    const rows = await db.all<Row>(
      `SELECT search_id, kind, ref_id, ref_seq, context, text, at FROM search_texts WHERE search_id IN (${ids.map(() => '?').join(', ')}) ORDER BY search_id DESC`,
      ids,
    );
    for (const r of rows) {
      // The index finds rows holding any word; a hit holds every one.
      const has = new Set(textWords(r.text));
      if (!words.every((w) => has.has(w))) continue;
      items.push({
        search_id: Number(r.search_id),
        kind: r.kind,
        ref_id: r.ref_id,
        ref_seq: r.ref_seq === null ? null : Number(r.ref_seq),
        context: r.context,
        at: r.at === null ? null : Number(r.at),
        snippet: snippetOf(r.text, words),
      });
      if (items.length === SEARCH_PAGE) return { q, kind, items, next: Number(r.search_id) };
    }
    cursor = ids.at(-1)!;
    if (ids.length < CANDIDATES) return { q, kind, items, next: null };
  }
  // The page's bound was reached before it filled: older matches may remain.
  return { q, kind, items, next: cursor ?? null };
}

/** Every word of a text (not only the first 32 `searchWords` keeps of a query). */
function textWords(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}
