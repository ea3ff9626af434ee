/**
 * HTML building blocks. Everything interpolated with `h` is escaped; `trusted` (Hono's `raw`) is
 * the one escape hatch — grep for it — and is used only on markup this module built itself.
 */
import { html, raw } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';

export type Markup = HtmlEscapedString;

/** Escaping template tag (values are escaped; arrays of Markup are joined). */
export function h(strings: TemplateStringsArray, ...values: unknown[]): Markup {
  return html(strings, ...values) as Markup;
}

/** The escape hatch: marks already-built markup as safe. */
export const trusted = (markup: string): Markup => raw(markup) as Markup;

export interface NavItem {
  href: string;
  title: string;
}

/** The page frame; with a session's `csrf` it carries the token (meta tag) and a logout form. */
export function layout(title: string, nav: readonly NavItem[], body: Markup, csrf?: string): string {
  return h`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · noema</title>${csrf ? h`<meta name="csrf-token" content="${csrf}">` : ''}
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:0;display:flex;min-height:100vh}
nav{background:#f3f3f5;padding:1em;min-width:12em;border-right:1px solid #ddd}
nav a{display:block;padding:.15em 0}
main{padding:1em 2em;flex:1;min-width:0}
table{border-collapse:collapse;font-size:13px}td,th{border-bottom:1px solid #e3e3e3;padding:.3em .6em;text-align:left;vertical-align:top}
pre{background:#fafafa;border:1px solid #eee;padding:.8em;overflow:auto;white-space:pre-wrap;word-break:break-word}
.muted{color:#777}
</style></head>
<body><nav><strong><a href="/">noema</a></strong>${nav.map((n) => h`<a href="${n.href}">${n.title}</a>`)}
${
  csrf
    ? h`<form method="post" action="/logout"><input type="hidden" name="_csrf" value="${csrf}"><button type="submit">Log out</button></form>`
    : ''
}</nav>
<main><h1>${title}</h1>${body}</main></body></html>`.toString();
}

/** A JSON value shown readably: indented, with strings that are catalog paths rendered as links. */
export function jsonBlock(value: unknown): Markup {
  return h`<pre>${JSON.stringify(value, null, 2)}</pre>`;
}
