/**
 * Read routes over the source trace (seed 004): `GET /source-invocations` (filtered, paginated),
 * `GET /source-invocations/:source_invocation_id`, `GET /attempts/:attempt_id/source-invocations`
 * `GET /llm-calls/:llm_call_id` with chunks and artifacts, and the documents they reference
 * (`/response-sources/hash/:hash`, `/json-schemas/hash/:hash`). JSON for now (`?format=json`).
 */
import { invalidInput } from '../../../core/errors.ts';
import {
  getJsonSchema,
  getLlmCall,
  getResponseSource,
  getSourceInvocation,
  type InvocationFilter,
  listSourceInvocations,
  MAX_PAGE,
} from '../../../sources/index.ts';
import type { AppServices, Route, RouteContext } from '../router.ts';

const STATUSES = ['running', 'succeeded', 'failed', 'interrupted'];

function assertJsonFormat(url: URL): void {
  const format = url.searchParams.get('format');
  if (format !== null && format !== 'json') {
    throw invalidInput(`format "${format}" is not available yet`, { format }, 'use ?format=json');
  }
}

function filterFrom(ctx: RouteContext): InvocationFilter {
  const q = ctx.url.searchParams;
  const filter: InvocationFilter = {};
  const text = (name: string, key: keyof InvocationFilter) => {
    const v = q.get(name);
    if (v === null) return;
    if (v.length === 0 || v.length > 256)
      throw invalidInput(`${name} must be 1-256 characters`, { [name]: v });
    (filter as Record<string, unknown>)[key] = v;
  };
  text('attempt_id', 'attempt_id');
  text('attempt', 'attempt_id');
  text('run_id', 'run_id');
  text('run', 'run_id');
  text('world_slug', 'world_slug');
  text('kind', 'invocation_kind');
  text('invocation_kind', 'invocation_kind');
  text('source', 'source_hash');
  text('source_hash', 'source_hash');
  text('interface', 'interface_name');
  text('cursor', 'cursor');
  text('status', 'status');
  if (filter.status !== undefined && !STATUSES.includes(filter.status)) {
    throw invalidInput(`status must be one of ${STATUSES.join(', ')}`, { status: filter.status });
  }
  const limit = q.get('limit');
  if (limit !== null) {
    const n = Number(limit);
    if (!/^\d+$/.test(limit) || n < 1 || n > MAX_PAGE)
      throw invalidInput(`limit must be an integer from 1 to ${MAX_PAGE}`);
    filter.limit = n;
  }
  return filter;
}

function links(record: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {
    self: `/source-invocations/${record.source_invocation_id}`,
    response_source: `/response-sources/hash/${record.source_hash}`,
  };
  if (record.output_schema_hash) out.output_schema = `/json-schemas/hash/${record.output_schema_hash}`;
  if (record.input_schema_hash) out.input_schema = `/json-schemas/hash/${record.input_schema_hash}`;
  if (record.llm_call_id) out.llm_call = `/llm-calls/${record.llm_call_id}`;
  if (record.parent_source_invocation_id)
    out.parent = `/source-invocations/${record.parent_source_invocation_id}`;
  if (record.attempt_id) out.attempt = `/attempts/${record.attempt_id}/source-invocations`;
  return out;
}

export function sourceInvocationRoutes(app: AppServices): Route[] {
  const list = async (ctx: RouteContext, extra: InvocationFilter = {}) => {
    assertJsonFormat(ctx.url);
    const page = await listSourceInvocations(app.store, { ...filterFrom(ctx), ...extra });
    return { json: { ...page, items: page.items.map((r) => ({ ...r, links: links(r) })) } };
  };
  return [
    { method: 'GET', path: '/source-invocations', handle: (ctx) => list(ctx) },
    {
      method: 'GET',
      path: '/attempts/:attempt_id/source-invocations',
      handle: (ctx) => list(ctx, { attempt_id: ctx.params.attempt_id! }),
    },
    {
      method: 'GET',
      path: '/source-invocations/:source_invocation_id',
      async handle(ctx) {
        assertJsonFormat(ctx.url);
        const record = await getSourceInvocation(app.store, ctx.params.source_invocation_id!);
        return { json: { ...record, links: links(record) } };
      },
    },
    {
      method: 'GET',
      path: '/response-sources/hash/:hash',
      async handle(ctx) {
        assertJsonFormat(ctx.url);
        return { json: await getResponseSource(app.store, ctx.params.hash!) };
      },
    },
    {
      method: 'GET',
      path: '/json-schemas/hash/:hash',
      async handle(ctx) {
        assertJsonFormat(ctx.url);
        return { json: await getJsonSchema(app.store, ctx.params.hash!) };
      },
    },
    {
      method: 'GET',
      path: '/llm-calls/:llm_call_id',
      async handle(ctx) {
        assertJsonFormat(ctx.url);
        const call = await getLlmCall(app.store, ctx.params.llm_call_id!);
        return {
          json: { ...call, links: { source_invocation: `/source-invocations/${call.source_invocation_id}` } },
        };
      },
    },
  ];
}
