/**
 * The resource-kind contract (seed 004's registry-governed browser). A kind declares how to list
 * and load its records, how they are addressed (an id, or a content hash), which filters its list
 * accepts, and which fields point at other kinds. The catalog turns that into routes, JSON and
 * HTML answers, pagination, `links`, `uses` and OpenAPI — a kind never writes a route file.
 */
import type { Engine } from '../../../engine/index.ts';
import type { Store } from '../../../store/store.ts';

/** What loaders get: the server's shared services. */
export interface KindContext {
  store: Store;
  engine?: Engine;
}

/** A list filter, parsed and validated from the query string before the loader sees it (bad → 400). */
export type FilterSpec = (
  | { type: 'string'; maxLength?: number }
  | { type: 'enum'; values: readonly string[] }
  | { type: 'integer'; minimum?: number; maximum?: number }
) & {
  description?: string;
  /** Other query names accepted for this filter (e.g. `kind` for `invocation_kind`). */
  aliases?: readonly string[];
};

export type FilterValues = Record<string, string | number>;

export interface ListQuery {
  filters: FilterValues;
  /** 1..MAX_PAGE (default 50). */
  limit: number;
  /** The previous page's `next_cursor`, as the client sent it (validated text, not parsed). */
  cursor?: string;
}

export interface ListResult<R> {
  items: R[];
  /** Cursor of the page after the last item, or null at the end. */
  next_cursor: string | null;
}

/** A structural link: the value of `field` (when set) names a record of `kind`. */
export interface LinkRule {
  field: string;
  /** Target kind name, e.g. `llm-calls`. A link to a kind not registered is left out. */
  kind: string;
  /** Name in `links` (default: `field` without its `_id`/`_hash` suffix). */
  rel?: string;
  /**
   * The filter of *this* kind that selects records by `field` (default: a filter named `field`).
   * It makes this kind appear in the target's `/uses` when the target is content-addressed.
   */
  filter?: string;
}

/** A link computed from the record (for targets that are not catalog kinds). */
export interface ComputedLink {
  rel: string;
  href(record: Record<string, unknown>): string | null;
}

/** A nested list path with one filter fixed by a path parameter, e.g. `/attempts/:attempt_id/source-invocations`. */
export interface ListScope {
  path: string;
  param: string;
  filter: string;
}

export interface ResourceKind<R extends Record<string, unknown> = Record<string, unknown>> {
  /** URL segment and name: plural, kebab-case (`source-invocations`). */
  kind: string;
  /** Human title for navigation and pages. */
  title: string;
  description?: string;
  /**
   * `id`: served at `/<kind>/:<param>`, the record's id in `field` (default `param`).
   * `hash`: content-addressed, served at `/<kind>/hash/:hash` and `/<kind>/hash/:hash/uses`.
   */
  key: { by: 'id'; param: string; field?: string } | { by: 'hash'; field: string };
  filters?: Record<string, FilterSpec>;
  /** Lists a page, newest first. Without it the kind has no list route. */
  list?(ctx: KindContext, query: ListQuery): Promise<ListResult<R>>;
  /** The cursor that resumes a list right after `item` (used when a budget cuts a page short). */
  cursorOf?(item: R): string;
  /** Loads one record; throws a NoemaError with a 404 code (`UNKNOWN_…`) when there is none. */
  get(ctx: KindContext, key: string): Promise<R>;
  links?: ReadonlyArray<LinkRule | ComputedLink>;
  /** Columns of the HTML list table (default: the key field and up to five more). */
  columns?: readonly string[];
  scopes?: readonly ListScope[];
}
