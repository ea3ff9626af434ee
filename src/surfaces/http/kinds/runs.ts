/** Engine runs and the content-addressed graphs they execute, in the catalog. */
import { NoemaError } from '../../../core/errors.ts';
import { getGraph, listGraphs, listRuns, type RunFilter, runAttempts } from '../../../engine/index.ts';
import { llmUsageSum } from '../../../sources/index.ts';
import { registerKind } from '../catalog/index.ts';

const RUN_STATUSES = ['queued', 'running', 'waiting', 'completed', 'failed', 'cancelled'] as const;

registerKind<Record<string, unknown>>({
  kind: 'runs',
  title: 'Runs',
  description: 'Engine runs: status, state, outputs and contracts',
  key: { by: 'id', param: 'run_id' },
  filters: {
    status: { type: 'enum', values: RUN_STATUSES },
    graph_hash: { type: 'string', aliases: ['graph'] },
  },
  async list({ store }, query) {
    const filter: RunFilter = { ...(query.filters as Omit<RunFilter, 'limit'>), limit: query.limit };
    if (query.cursor !== undefined) filter.cursor = query.cursor;
    const page = await listRuns(store, filter);
    return { items: page.items.map((r) => ({ ...r })), next_cursor: page.next_cursor };
  },
  cursorOf: (item) => String(item.cursor),
  async get({ engine, store }, run_id) {
    if (!engine) throw new NoemaError('STORE_UNAVAILABLE', 'this server runs no engine', { status: 503 });
    const view = await engine.getRun(run_id);
    // Each claim of the run: which process (worker_id, host, pid) took it, when.
    // Tokens and cost of its LLM calls, summed when read (a world run's calls are its attempt's).
    const attempt = (view.state as { attempt?: { attempt_id?: unknown } } | null)?.attempt?.attempt_id;
    const usage = await llmUsageSum(
      store,
      typeof attempt === 'string' ? { attempt_id: attempt } : { run_ids: [run_id] },
    );
    return { ...view, attempts: await runAttempts(store, run_id), usage } as Record<string, unknown>;
  },
  links: [
    { field: 'graph_hash', kind: 'graphs', rel: 'graph' },
    { rel: 'events', href: (r) => `/runs/${encodeURIComponent(String(r.run_id))}/events` },
    {
      rel: 'source_invocations',
      href: (r) => `/source-invocations?run_id=${encodeURIComponent(String(r.run_id))}`,
    },
  ],
  columns: ['run_id', 'status', 'graph_hash', 'created_at', 'updated_at'],
});

registerKind<Record<string, unknown>>({
  kind: 'graphs',
  title: 'Graphs',
  description: 'Content-addressed engine graphs',
  key: { by: 'hash', field: 'graph_hash' },
  async list({ store }, query) {
    const page = await listGraphs(store, {
      limit: query.limit,
      ...(query.cursor !== undefined ? { cursor: query.cursor } : {}),
    });
    return { items: page.items.map((g) => ({ ...g })), next_cursor: page.next_cursor };
  },
  cursorOf: (g) => String(g.graph_hash),
  get: async ({ store }, hash) => ({ ...(await getGraph(store, hash)) }),
});
