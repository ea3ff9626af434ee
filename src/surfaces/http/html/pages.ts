/** The HTML pages of the catalog: index, list tables with pagination, detail with links, errors. */
import type { ErrorEnvelope } from '../../../core/errors.ts';
import { h, jsonBlock, layout, type Markup, type NavItem } from './render.ts';

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
}

function cell(value: unknown): Markup | string {
  if (value === null || value === undefined) return h`<span class="muted">—</span>`;
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > 120 ? `${text.slice(0, 117)}…` : text;
}

export function renderListPage(page: ListPage): string {
  const rows = page.items.map((item) => {
    const href = page.hrefOf(item);
    return h`<tr>${page.columns.map((col, i) =>
      i === 0 && href ? h`<td><a href="${href}">${cell(item[col])}</a></td>` : h`<td>${cell(item[col])}</td>`,
    )}</tr>`;
  });
  const body = h`${
    page.items.length === 0
      ? h`<p class="muted">Nothing here yet.</p>`
      : h`<table><thead><tr>${page.columns.map((c) => h`<th>${c}</th>`)}</tr></thead><tbody>${rows}</tbody></table>`
  }
<p>${page.nextHref ? h`<a href="${page.nextHref}" rel="next">next page →</a>` : h`<span class="muted">end of list</span>`}${
    page.truncated ? h` <span class="muted">(page cut to the character budget)</span>` : ''
  }</p>`;
  return layout(page.title, page.nav, body, page.csrf);
}

export interface DetailPage {
  title: string;
  nav: readonly NavItem[];
  record: Record<string, unknown>;
  links: Record<string, string>;
  csrf?: string | undefined;
}

export function renderDetailPage(page: DetailPage): string {
  const { links: _links, ...record } = page.record;
  const linkList = Object.entries(page.links).map(
    ([rel, href]) => h`<li>${rel}: <a href="${href}">${href}</a></li>`,
  );
  const body = h`${linkList.length ? h`<h2>Links</h2><ul>${linkList}</ul>` : ''}<h2>Record</h2>${jsonBlock(record)}
<p><a href="?format=json">as JSON</a></p>`;
  return layout(page.title, page.nav, body, page.csrf);
}

export function renderIndexPage(nav: readonly NavItem[], routes: readonly string[], csrf?: string): string {
  const body = h`<p>Resource kinds:</p><ul>${nav.map((n) => h`<li><a href="${n.href}">${n.title}</a></li>`)}</ul>
<h2>Routes</h2><ul>${routes.map((r) => h`<li><code>${r}</code></li>`)}</ul>`;
  return layout('noema', nav, body, csrf);
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
