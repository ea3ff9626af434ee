/**
 * The paged waterfall of an attempt, run, session or flowchart run: a page of its source
 * invocations in sequence order, drawn nested, with "older calls" / "newer calls" links.
 */
import type { Queryable } from '../../../store/store.ts';
import { waterfallPicture } from '../../pictures/index.ts';
import { h, type Markup, picture } from '../html/render.ts';
import { waterfallLegend, waterfallRows } from './common.ts';
import { pageCursor, pageHref, pager } from './paging.ts';
import { type InvocationScope, invocationPage } from './reads.ts';

/** Bars on one page of a waterfall; the pager reaches the others. */
export const WATERFALL_BARS = 200;

/** The waterfall of `scope` at the page `url` names (`?before=` / `?after=` an invocation_seq). */
export async function pagedWaterfall(
  store: Queryable,
  scope: InvocationScope,
  url: URL | undefined,
  title: string,
  size: number = WATERFALL_BARS,
): Promise<Markup> {
  const cursor = pageCursor(url);
  const page = await invocationPage(store, scope, cursor, size);
  const path = url?.pathname ?? '';
  const search = url?.search ?? '';
  const seqs = page.items.map((r) => Number(r.invocation_seq));
  const links = pager(
    {
      older: page.older === null ? null : pageHref(path, search, { before: page.older }),
      newer: page.newer === null ? null : pageHref(path, search, { after: page.newer }),
    },
    seqs.length ? `calls #${seqs[0]}–#${seqs.at(-1)}` : 'no calls on this page',
    { older: 'older calls', newer: 'newer calls' },
  );
  const rows = waterfallRows(page.items);
  if (!rows.length)
    return h`<p class="muted">No source invocations${(cursor.after ?? cursor.before) ? ' on this page' : ' yet'}.</p>${links}`;
  return h`${picture(waterfallPicture(rows, title))}${waterfallLegend()}${links}`;
}
