/**
 * The source trace in the catalog (seed 004): source invocations (filtered, paginated, also per
 * attempt), LLM calls, and the content-addressed documents they reference.
 */
import {
  getJsonSchema,
  getLlmCall,
  getResponseSource,
  getSourceInvocation,
  type InvocationFilter,
  listJsonSchemas,
  listResponseSources,
  listSourceInvocations,
} from '../../../sources/index.ts';
import { registerKind } from '../catalog/index.ts';

const STATUSES = ['running', 'succeeded', 'failed', 'interrupted'] as const;

registerKind({
  kind: 'source-invocations',
  title: 'Source invocations',
  description: 'Durable traces of every LLM, HTTP and MCP call',
  key: { by: 'id', param: 'source_invocation_id' },
  filters: {
    attempt_id: { type: 'string', aliases: ['attempt'] },
    run_id: { type: 'string', aliases: ['run'] },
    world_slug: { type: 'string' },
    invocation_kind: { type: 'string', aliases: ['kind'] },
    status: { type: 'enum', values: STATUSES },
    source_hash: { type: 'string', aliases: ['source'] },
    interface_name: { type: 'string', aliases: ['interface'] },
    output_schema_hash: { type: 'string' },
    input_schema_hash: { type: 'string' },
  },
  async list({ store }, query) {
    const filter: InvocationFilter = { ...(query.filters as InvocationFilter), limit: query.limit };
    if (query.cursor !== undefined) filter.cursor = query.cursor;
    const page = await listSourceInvocations(store, filter);
    return { items: page.items, next_cursor: page.next_cursor };
  },
  cursorOf: (item) => String(item.source_invocation_id),
  get: ({ store }, id) => getSourceInvocation(store, id),
  links: [
    { field: 'source_hash', kind: 'response-sources', rel: 'response_source' },
    { field: 'output_schema_hash', kind: 'json-schemas', rel: 'output_schema' },
    { field: 'input_schema_hash', kind: 'json-schemas', rel: 'input_schema' },
    { field: 'llm_call_id', kind: 'llm-calls', rel: 'llm_call' },
    { field: 'parent_source_invocation_id', kind: 'source-invocations', rel: 'parent' },
    { field: 'run_id', kind: 'runs', rel: 'run' },
    { field: 'workflow_hash', kind: 'cognition-workflows', rel: 'workflow' },
    {
      rel: 'attempt',
      href: (r) =>
        r.attempt_id ? `/attempts/${encodeURIComponent(String(r.attempt_id))}/source-invocations` : null,
    },
  ],
  columns: [
    'source_invocation_id',
    'invocation_kind',
    'interface_name',
    'status',
    'started_at',
    'duration_ms',
  ],
  scopes: [{ path: '/attempts/:attempt_id/source-invocations', param: 'attempt_id', filter: 'attempt_id' }],
});

registerKind({
  kind: 'llm-calls',
  title: 'LLM calls',
  description: 'One LLM call with its request messages, chunks and artifacts',
  key: { by: 'id', param: 'llm_call_id' },
  get: ({ store }, id) => getLlmCall(store, id),
  links: [{ field: 'source_invocation_id', kind: 'source-invocations', rel: 'source_invocation' }],
});

registerKind<Record<string, unknown>>({
  kind: 'response-sources',
  title: 'Response sources',
  key: { by: 'hash', field: 'hash' },
  filters: { interface_name: { type: 'string', aliases: ['interface'] } },
  async list({ store }, query) {
    const page = await listResponseSources(store, {
      limit: query.limit,
      ...(query.cursor !== undefined ? { cursor: query.cursor } : {}),
      ...(query.filters.interface_name !== undefined
        ? { interface_name: String(query.filters.interface_name) }
        : {}),
    });
    return { items: page.items.map((d) => ({ ...d })), next_cursor: page.next_cursor };
  },
  cursorOf: (d) => String(d.hash),
  get: async ({ store }, hash) => ({ ...(await getResponseSource(store, hash)) }),
});

registerKind<Record<string, unknown>>({
  kind: 'json-schemas',
  title: 'JSON schemas',
  key: { by: 'hash', field: 'hash' },
  async list({ store }, query) {
    const page = await listJsonSchemas(store, {
      limit: query.limit,
      ...(query.cursor !== undefined ? { cursor: query.cursor } : {}),
    });
    return { items: page.items.map((d) => ({ ...d })), next_cursor: page.next_cursor };
  },
  cursorOf: (d) => String(d.hash),
  get: async ({ store }, hash) => ({ ...(await getJsonSchema(store, hash)) }),
});
