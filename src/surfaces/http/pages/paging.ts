/**
 * Paging of the browser's pictures: a page names its position with `?before=N` or `?after=N` (a turn
 * for the timeline, an invocation sequence number for the waterfall), and shows "older" / "newer"
 * links rendered server-side. Bad cursors are typed errors, never a 500.
 */
import { invalidInput } from '../../../core/errors.ts';
import { h, type Markup } from '../html/render.ts';

/** Where a page starts: at the default position, after a position, or before one. */
export type PageCursor = { after?: number; before?: number };

const INTEGER = /^\d{1,15}$/;

/** `?before=` / `?after=` of `url`: at most one of them, each a non-negative integer. */
export function pageCursor(url: URL | undefined): PageCursor {
  const before = url?.searchParams.get('before') ?? null;
  const after = url?.searchParams.get('after') ?? null;
  if (before !== null && after !== null)
    throw invalidInput('give either before or after, not both', { before, after });
  for (const [name, value] of [
    ['before', before],
    ['after', after],
  ] as const)
    if (value !== null && !INTEGER.test(value))
      throw invalidInput(`${name} must be a non-negative integer (a link from this page)`, { [name]: value });
  if (before !== null) return { before: Number(before) };
  if (after !== null) return { after: Number(after) };
  return {};
}

/** `path` with its page cursor replaced (other query parameters kept). */
export function pageHref(path: string, search: string, cursor: PageCursor): string {
  const params = new URLSearchParams(search);
  params.delete('before');
  params.delete('after');
  if (cursor.before !== undefined) params.set('before', String(cursor.before));
  if (cursor.after !== undefined) params.set('after', String(cursor.after));
  const query = params.toString();
  return query ? `${path}?${query}` : path;
}

/** The pager under a picture: "← older" and "newer →" links where there is more, and what is shown. */
export function pager(
  links: { older?: string | null; newer?: string | null },
  shown: string,
  noun: { older: string; newer: string },
): Markup {
  if (!links.older && !links.newer) return h``;
  return h`<nav class="pager" aria-label="pages">${
    links.older ? h`<a rel="prev" href="${links.older}">← ${noun.older}</a>` : h`<span></span>`
  }<span class="muted">${shown}</span>${
    links.newer ? h`<a rel="next" href="${links.newer}">${noun.newer} →</a>` : h`<span></span>`
  }</nav>`;
}
