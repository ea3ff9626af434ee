/**
 * A minimal SVG writer for the browser's pictures: every text and attribute value is escaped here,
 * and the result is a `Svg` value the HTML layer embeds as-is (it is already safe markup).
 */

/** Markup produced by this module: safe to embed without further escaping. */
export class Svg {
  readonly markup: string;
  constructor(markup: string) {
    this.markup = markup;
  }
  toString(): string {
    return this.markup;
  }
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

export function escapeXml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

export type Attrs = Record<string, string | number | undefined | null | false>;

function attrs(a: Attrs): string {
  let out = '';
  for (const [k, v] of Object.entries(a)) {
    if (v === undefined || v === null || v === false) continue;
    out += ` ${k}="${escapeXml(typeof v === 'number' ? fmt(v) : v)}"`;
  }
  return out;
}

/** Numbers with at most two decimals (smaller pages, stable output). */
export function fmt(n: number): string {
  return String(Math.round(n * 100) / 100);
}

/** An element; `children` are already-built markup (from `el`/`text`), never raw user strings. */
export function el(tag: string, a: Attrs = {}, ...children: Array<string | Svg>): string {
  const inner = children.map((c) => (c instanceof Svg ? c.markup : c)).join('');
  return inner === '' ? `<${tag}${attrs(a)}/>` : `<${tag}${attrs(a)}>${inner}</${tag}>`;
}

/** A text node (escaped). */
export function text(value: string): string {
  return escapeXml(value);
}

/** Cuts a label to `max` characters with an ellipsis (the full text goes in a `<title>`). */
export function clip(label: string, max: number): string {
  return label.length <= max ? label : `${label.slice(0, Math.max(1, max - 1))}…`;
}

/** A link around `child` when `href` is set (relative URLs only; anything else is dropped). */
export function link(href: string | undefined, child: string): string {
  if (!href || !/^\/(?!\/)/.test(href)) return child;
  return el('a', { href }, child);
}

/** The root `<svg>` element, scalable to its container. */
export function svgRoot(
  width: number,
  height: number,
  cls: string,
  body: string[],
  label: string,
  description?: string,
): Svg {
  return new Svg(
    el(
      'svg',
      {
        xmlns: 'http://www.w3.org/2000/svg',
        viewBox: `0 0 ${fmt(width)} ${fmt(height)}`,
        width: fmt(width),
        height: fmt(height),
        class: cls,
        // A picture whose marks are links is a group of links; `img` would hide them from assistive tech.
        role: body.some((b) => b.includes('<a ')) ? 'group' : 'img',
        'aria-label': label,
      },
      el('title', {}, text(label)),
      description ? el('desc', {}, text(description)) : '',
      ...body,
    ),
  );
}
