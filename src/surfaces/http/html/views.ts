/**
 * Detail views: a kind's HTML page can show more than its record — pictures, forensics chains, live
 * regions. A page module registers a view for a kind; the catalog renders it above the record (the
 * JSON twin is unchanged). Views read through the same services as loaders and must stay bounded.
 */
import type { KindContext } from '../catalog/kind.ts';
import type { LayoutOptions, Markup } from './render.ts';

export interface ViewResult {
  body: Markup;
  /** A better page title than `<Kind>: <key>`. */
  title?: string;
  crumbs?: LayoutOptions['crumbs'];
  /** Show the raw record (collapsed) under the view; default true. */
  record?: boolean;
}

/** `csrf` is the session's CSRF token, for the view's forms (absent for bearer callers). */
export type DetailView = (
  ctx: KindContext,
  record: Record<string, unknown>,
  url: URL,
  csrf?: string,
) => Promise<ViewResult>;

const views = new Map<string, DetailView>();

export function registerView(kind: string, view: DetailView): void {
  views.set(kind, view);
}

export function viewOf(kind: string): DetailView | undefined {
  return views.get(kind);
}
