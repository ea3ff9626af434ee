/**
 * Front door of the resource catalog: runtimes' surface files import `registerKind` and the kind
 * types from here (see docs/http.md, "Register a kind").
 */
export type {
  ComputedLink,
  FilterSpec,
  FilterValues,
  KindContext,
  LinkRule,
  ListQuery,
  ListResult,
  ListScope,
  ResourceKind,
} from './kind.ts';
export { checkText, DEFAULT_MAX_CHARS, MAX_PAGE } from './query.ts';
export { Catalog, defaultCatalog, registerKind } from './registry.ts';
export { catalogRoutes, navOf } from './routes.ts';
