/**
 * Generates the routes of every registered kind: `/<kind>` (+ scopes), `/<kind>/:id` or
 * `/<kind>/hash/:hash` and `/<kind>/hash/:hash/uses`, each answering JSON or HTML.
 */
import { negotiate } from '../html/negotiate.ts';
import { renderDetailPage, renderListPage } from '../html/pages.ts';
import type { NavItem } from '../html/render.ts';
import { viewOf } from '../html/views.ts';
import type { AppServices, ParamDoc, Reply, Route, RouteContext } from '../route.ts';
import { fitList, fitRecord } from './budget.ts';
import type { FilterSpec, FilterValues, KindContext, ResourceKind } from './kind.ts';
import { keyOf, linksOf } from './links.ts';
import { checkKey, DEFAULT_MAX_CHARS, DEFAULT_PAGE, MAX_PAGE, parseBudget, parseListQuery } from './query.ts';
import type { Catalog } from './registry.ts';

export function navOf(catalog: Catalog): NavItem[] {
  return catalog
    .all()
    .filter((k) => k.list)
    .map((k) => ({ href: `/${k.kind}`, title: k.title }));
}

const PAGE_PARAMS: ParamDoc[] = [
  {
    name: 'limit',
    in: 'query',
    schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE, default: DEFAULT_PAGE },
  },
  { name: 'cursor', in: 'query', schema: { type: 'string' }, description: 'the previous page’s next_cursor' },
];
const READ_PARAMS: ParamDoc[] = [
  {
    name: 'max_chars',
    in: 'query',
    schema: { type: 'integer', minimum: 1, default: DEFAULT_MAX_CHARS },
    description: 'character budget of the answer',
  },
  { name: 'format', in: 'query', schema: { type: 'string', enum: ['json', 'html'] } },
];
const FULL_PARAM: ParamDoc = {
  name: 'full',
  in: 'query',
  schema: { type: 'boolean' },
  description: 'the whole record, without the budget',
};

function filterSchema(spec: FilterSpec): Record<string, unknown> {
  if (spec.type === 'enum') return { type: 'string', enum: [...spec.values] };
  if (spec.type === 'integer')
    return { type: 'integer', minimum: spec.minimum ?? 0, maximum: spec.maximum ?? 999_999_999 };
  return { type: 'string', maxLength: spec.maxLength ?? 256 };
}

function filterDocs(kind: ResourceKind, except?: string): ParamDoc[] {
  return Object.entries(kind.filters ?? {})
    .filter(([name]) => name !== except)
    .map(([name, spec]) => ({
      name,
      in: 'query' as const,
      schema: filterSchema(spec),
      ...(spec.description || spec.aliases?.length
        ? {
            description: [spec.description, spec.aliases?.length ? `also: ${spec.aliases.join(', ')}` : '']
              .filter(Boolean)
              .join('; '),
          }
        : {}),
    }));
}

function pathParam(name: string): ParamDoc {
  return { name, in: 'path', required: true, schema: { type: 'string' } };
}

export function catalogRoutes(catalog: Catalog, services: AppServices): Route[] {
  const kctx: KindContext = services.engine
    ? { store: services.store, engine: services.engine }
    : { store: services.store };
  const routes: Route[] = [];

  const listReply = async (
    ctx: RouteContext,
    kind: ResourceKind,
    fixed: FilterValues = {},
  ): Promise<Reply> => {
    const format = negotiate(ctx.c);
    // A page's filter form sends its empty fields too: for a browser an empty filter is no filter.
    const params = new URLSearchParams(ctx.url.searchParams);
    if (format === 'html') for (const [k, v] of [...params]) if (v === '') params.delete(k);
    const q = parseListQuery(kind, params, fixed);
    const page = await kind.list!(kctx, {
      filters: q.filters,
      limit: q.limit,
      ...(q.cursor !== undefined ? { cursor: q.cursor } : {}),
    });
    services.failures?.storeAnswered();
    const withLinks = page.items.map((r) => ({ ...r, links: linksOf(catalog, kind, r) }));
    const build = (kept: typeof withLinks, cut = kept.length < withLinks.length) => ({
      items: kept,
      next_cursor: cut ? (kept.length ? kind.cursorOf!(kept.at(-1)!) : (q.cursor ?? null)) : page.next_cursor,
      has_more: cut || page.next_cursor !== null,
      truncated: cut,
    });
    const { kept, json } = fitList(withLinks, q.budget.maxChars, (k) => build(k));
    if (format === 'json') return json === null ? { json: build(kept) } : { jsonText: json };
    const body = build(kept);
    const next = new URLSearchParams(params);
    if (body.next_cursor) next.set('cursor', body.next_cursor);
    return {
      html: renderListPage({
        title: kind.title,
        nav: navOf(catalog),
        columns: kind.columns ?? defaultColumns(kind, kept),
        items: kept,
        hrefOf: (item) => (item.links as Record<string, string>).self ?? null,
        nextHref: body.has_more && body.next_cursor ? `${ctx.url.pathname}?${next}` : null,
        truncated: body.truncated,
        csrf: ctx.csrfToken,
        path: ctx.url.pathname,
        filters: Object.entries(kind.filters ?? {})
          .filter(([name]) => !(name in fixed))
          .map(([name, spec]) => ({ name, spec, value: q.filters[name] })),
      }),
    };
  };

  const detailReply = async (ctx: RouteContext, kind: ResourceKind, rawKey: string): Promise<Reply> => {
    const format = negotiate(ctx.c);
    const budget = parseBudget(ctx.url.searchParams);
    const record = await kind.get(kctx, checkKey(kind, rawKey));
    services.failures?.storeAnswered();
    const links = linksOf(catalog, kind, record);
    const { fitted, json } = fitRecord({ ...record, links }, budget.maxChars);
    const cut = fitted.truncated === true && Array.isArray(fitted.truncated_fields) && links.self;
    if (cut) fitted.links = { ...links, full: `${links.self}?full=true` };
    if (format === 'json') return json === null || cut ? { json: fitted } : { jsonText: json };
    const view = await viewOf(kind.kind)?.(kctx, record, ctx.url, ctx.csrfToken);
    return {
      html: renderDetailPage({
        title: view?.title ?? `${kind.title}: ${keyOf(kind, record)}`,
        nav: navOf(catalog),
        record: fitted,
        links: fitted.links as Record<string, string>,
        csrf: ctx.csrfToken,
        ...(view ? { view: view.body, collapseRecord: true } : {}),
        options: { path: ctx.url.pathname, ...(view?.crumbs ? { crumbs: view.crumbs } : {}) },
      }),
    };
  };

  for (const kind of catalog.all()) {
    if (kind.list) {
      routes.push({
        method: 'GET',
        path: `/${kind.kind}`,
        summary: `List ${kind.title} (newest first)`,
        params: [...filterDocs(kind), ...PAGE_PARAMS, ...READ_PARAMS],
        handle: (ctx) => listReply(ctx, kind),
      });
      for (const scope of kind.scopes ?? []) {
        routes.push({
          method: 'GET',
          path: scope.path,
          summary: `List ${kind.title} of one ${scope.param}`,
          params: [pathParam(scope.param), ...filterDocs(kind, scope.filter), ...PAGE_PARAMS, ...READ_PARAMS],
          handle: (ctx) =>
            listReply(ctx, kind, { [scope.filter]: checkKey(kind, ctx.params[scope.param] ?? '') }),
        });
      }
    }
    if (kind.key.by === 'id') {
      const param = kind.key.param;
      routes.push({
        method: 'GET',
        path: `/${kind.kind}/:${param}`,
        summary: `One ${kind.title} record with its links`,
        params: [pathParam(param), ...READ_PARAMS, FULL_PARAM],
        handle: (ctx) => detailReply(ctx, kind, ctx.params[param] ?? ''),
      });
    } else {
      routes.push({
        method: 'GET',
        path: `/${kind.kind}/hash/:hash`,
        summary: `One ${kind.title} document by content hash`,
        params: [pathParam('hash'), ...READ_PARAMS, FULL_PARAM],
        handle: (ctx) => detailReply(ctx, kind, ctx.params.hash ?? ''),
      });
      routes.push({
        method: 'GET',
        path: `/${kind.kind}/hash/:hash/uses`,
        summary: `Records that reference this ${kind.title} document`,
        params: [
          pathParam('hash'),
          { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: MAX_PAGE } },
        ],
        handle: async (ctx) => {
          const hash = checkKey(kind, ctx.params.hash ?? '');
          await kind.get(kctx, hash);
          const limit = parseListQuery({ ...kind, filters: {} }, ctx.url.searchParams).limit;
          const uses = [];
          for (const { kind: referrer, rule, filter } of catalog.referrersOf(kind.kind)) {
            const page = await referrer.list!(kctx, { filters: { [filter]: hash }, limit });
            uses.push({
              kind: referrer.kind,
              field: rule.field,
              href: `/${referrer.kind}?${new URLSearchParams({ [filter]: hash })}`,
              items: page.items.map((r) => ({ ...r, links: linksOf(catalog, referrer, r) })),
              next_cursor: page.next_cursor,
              has_more: page.next_cursor !== null,
            });
          }
          return { json: { kind: kind.kind, hash, uses } };
        },
      });
    }
  }
  return routes;
}

function defaultColumns(kind: ResourceKind, items: ReadonlyArray<Record<string, unknown>>): string[] {
  const key = kind.key.by === 'hash' ? kind.key.field : (kind.key.field ?? kind.key.param);
  const rest = Object.keys(items[0] ?? {}).filter((k) => k !== key && k !== 'links' && k !== 'cursor');
  return [key, ...rest.slice(0, 5)];
}
