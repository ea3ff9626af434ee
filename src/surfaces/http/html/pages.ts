/** The HTML pages of the catalog: list tables with pagination, detail with links and views, errors. */
import type { ErrorEnvelope } from '../../../core/errors.ts';
import type { FilterSpec } from '../catalog/kind.ts';
import { linkedJson } from './linked-json.ts';
import { h, jsonBlock, type LayoutOptions, layout, type Markup, type NavItem } from './render.ts';

export interface ListPage {
  title: string;
  nav: readonly NavItem[];
  columns: readonly string[];
  items: ReadonlyArray<Record<string, unknown>>;
  /** The detail path of each item (or null). */
  hrefOf(item: Record<string, unknown>): string | null;
  nextHref: string | null;
  truncated: boolean;
  csrf?: string | undefined;
  path?: string;
  /** The kind's filters, with the values the list is filtered by: a search form above the table. */
  filters?: ReadonlyArray<{ name: string; spec: FilterSpec; value: string | number | undefined }>;
}

function filterForm(page: ListPage): Markup | '' {
  if (!page.filters?.length) return '';
  const fields = page.filters.map(({ name, spec, value }) => {
    const id = `filter-${name}`;
    const v = value === undefined ? '' : String(value);
    const control =
      spec.type === 'enum'
        ? h`<select id="${id}" name="${name}"><option value="">any</option>${spec.values.map(
            (o) => h`<option${o === v ? h` selected` : ''}>${o}</option>`,
          )}</select>`
        : h`<input id="${id}" name="${name}" type="${spec.type === 'integer' ? 'number' : 'search'}" value="${v}">`;
    return h`<div class="field"><label for="${id}">${name.replace(/_/g, ' ')}</label>${control}</div>`;
  });
  return h`<form method="get" class="action filters" role="search" aria-label="Filter ${page.title}">${fields}<button type="submit">Filter</button>${
    page.filters.some((f) => f.value !== undefined) ? h` <a href="${page.path ?? '?'}">clear</a>` : ''
  }</form>`;
}

const STATUS_COLUMNS = new Set(['status']);
const TIME_COLUMNS = new Set(['created_at', 'updated_at', 'started_at', 'ended_at']);

function cell(col: string, value: unknown): Markup | string {
  if (value === null || value === undefined) return h`<span class="muted">—</span>`;
  if (STATUS_COLUMNS.has(col))
    return h`<span class="badge s-${String(value)
      .toLowerCase()
      .replace(/[^a-z_-]/g, '')}">${String(value)}</span>`;
  if (TIME_COLUMNS.has(col) && typeof value === 'number')
    return new Date(value).toISOString().replace('T', ' ').slice(0, 19);
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > 120 ? `${text.slice(0, 117)}…` : text;
}

export function renderListPage(page: ListPage): string {
  const rows = page.items.map((item) => {
    const href = page.hrefOf(item);
    return h`<tr>${page.columns.map((col, i) =>
      i === 0 && href
        ? h`<td><a href="${href}">${cell(col, item[col])}</a></td>`
        : h`<td>${cell(col, item[col])}</td>`,
    )}</tr>`;
  });
  const body = h`${filterForm(page)}${
    page.items.length === 0
      ? h`<p class="muted">Nothing here yet.</p>`
      : h`<div class="scroll"><table><thead><tr>${page.columns.map((c) => h`<th>${c}</th>`)}</tr></thead><tbody>${rows}</tbody></table></div>`
  }
<p>${page.nextHref ? h`<a href="${page.nextHref}" rel="next">next page →</a>` : h`<span class="muted">end of list</span>`}${
    page.truncated ? h` <span class="muted">(page cut to the character budget)</span>` : ''
  } · <a href="?format=json">as JSON</a></p>`;
  return layout(page.title, page.nav, body, page.csrf, page.path ? { path: page.path } : {});
}

export interface DetailPage {
  title: string;
  nav: readonly NavItem[];
  record: Record<string, unknown>;
  links: Record<string, string>;
  csrf?: string | undefined;
  /** A kind's view, shown above the links and the record. */
  view?: Markup;
  /** Show the record open (default) or collapsed under the view. */
  collapseRecord?: boolean;
  options?: LayoutOptions;
}

export function renderDetailPage(page: DetailPage): string {
  const { links: _links, ...record } = page.record;
  const linkList = Object.entries(page.links).map(
    ([rel, href]) => h`<li>${rel}: <a href="${href}">${href}</a></li>`,
  );
  const links = linkList.length ? h`<h2>Links</h2><ul>${linkList}</ul>` : '';
  const raw = page.collapseRecord
    ? h`<details><summary>The whole record</summary>${linkedJson(record)}</details>`
    : h`<h2>Record</h2>${linkedJson(record)}`;
  const body = h`${page.view ?? ''}${links}${raw}<p><a href="?format=json">as JSON</a></p>`;
  return layout(page.title, page.nav, body, page.csrf, page.options ?? {});
}

/** The plain index (every kind and route), for a server without the browser's home page. */
export function renderIndexPage(nav: readonly NavItem[], routes: readonly string[], csrf?: string): string {
  const body = h`<ul>${nav.map((n) => h`<li><a href="${n.href}">${n.title}</a></li>`)}</ul>
<h2>Routes</h2><ul>${routes.map((r) => h`<li><code>${r}</code></li>`)}</ul>`;
  return layout('noema', nav, body, csrf, { path: '/' });
}

export function renderErrorPage(status: number, envelope: ErrorEnvelope): string {
  return layout(
    `${status} ${envelope.code}`,
    [{ href: '/', title: 'home' }],
    h`<p>${envelope.message}</p>${
      envelope.hint ? h`<p class="muted">${envelope.hint}</p>` : ''
    }${jsonBlock(envelope)}`,
  );
}
