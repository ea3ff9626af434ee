/**
 * HTML building blocks and the page frame. Everything interpolated with `h` is escaped; `trusted`
 * (Hono's `raw`) is the one escape hatch — grep for it — and is used only on markup this code built
 * itself (SVG pictures whose writer escapes every value). The stylesheet and the live script are
 * files (`assets.ts`): the Content-Security-Policy allows nothing inline.
 */
import { html, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import type { Svg } from '../../pictures/index.ts';
import { ICON_HREF, LIVE_SCRIPT_HREF, STYLESHEET_HREF } from './assets.ts';
import { groupNav, type NavItem } from './nav.ts';

export type { NavItem } from './nav.ts';

export type Markup = HtmlEscapedString;

/** Escaping template tag (values are escaped; arrays of Markup are joined). */
export function h(strings: TemplateStringsArray, ...values: unknown[]): Markup {
  return html(strings, ...values) as Markup;
}

/** The escape hatch: marks already-built markup as safe. */
export const trusted = (markup: string): Markup => raw(markup) as Markup;

/** An SVG picture (already escaped by the pictures' writer) inside a scrollable box. */
// Focusable: a picture wider than the page scrolls sideways, and a keyboard must be able to scroll it.
export const picture = (svg: Svg): Markup =>
  h`<div class="picture-box" tabindex="0">${trusted(svg.markup)}</div>`;

export interface LayoutOptions {
  /** Breadcrumb links above the title. */
  crumbs?: ReadonlyArray<NavItem>;
  /** The page's path, to mark the current navigation entry. */
  path?: string;
}

/** The page frame; with a session's `csrf` it carries the token (meta tag) and a logout form. */
export function layout(
  title: string,
  nav: readonly NavItem[],
  body: Markup,
  csrf?: string,
  options: LayoutOptions = {},
): string {
  const here = options.path?.split('/')[1];
  const groups = groupNav(nav).map(
    (g) =>
      h`<h4>${g.title}</h4>${g.items.map(
        (n) =>
          h`<a href="${n.href}"${here && n.href === `/${here}` ? trusted(' class="here"') : ''}>${n.title}</a>`,
      )}`,
  );
  const crumbs = options.crumbs?.length
    ? h`<div class="crumbs">${options.crumbs.map((c, i) => h`${i ? ' › ' : ''}<a href="${c.href}">${c.title}</a>`)}</div>`
    : '';
  return h`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · noema</title>${csrf ? h`<meta name="csrf-token" content="${csrf}">` : ''}
<link rel="stylesheet" href="${STYLESHEET_HREF}"><link rel="icon" type="image/svg+xml" href="${ICON_HREF}"></head>
<body><nav class="side"><a class="brand" href="/">noema</a>${
    here === 'search'
      ? ''
      : h`<form method="get" action="/search" role="search" class="nav-search"><label for="nav-search-q">Search text</label><input id="nav-search-q" name="q" type="search" maxlength="200"><button type="submit">Search</button></form>`
  }${groups}
${
  csrf
    ? h`<form method="post" action="/logout"><input type="hidden" name="_csrf" value="${csrf}"><button type="submit">Log out</button></form>`
    : ''
}</nav>
<main>${crumbs}<h1>${title}</h1>${body}</main><script src="${LIVE_SCRIPT_HREF}"></script></body></html>`.toString();
}

/** A JSON value shown readably, indented. */
export function jsonBlock(value: unknown): Markup {
  return h`<pre tabindex="0">${JSON.stringify(value, null, 2)}</pre>`;
}

/** A status as a coloured badge. */
export function badge(status: unknown): Markup {
  const s = String(status ?? 'unknown');
  return h`<span class="badge s-${s.toLowerCase().replace(/[^a-z_-]/g, '')}">${s}</span>`;
}
