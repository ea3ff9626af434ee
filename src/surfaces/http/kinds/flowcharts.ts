/**
 * Flowcharts (seed 003) in the catalog, for the browser and for API clients that prefer the catalog's
 * shape to `/api`: flowcharts with their graph, and flowchart runs with their node runs.
 */
import { NoemaError } from '../../../core/errors.ts';
import { getFlowchart, getFlowRun, getGraph, listFlowcharts } from '../../../runtimes/flow/index.ts';
import { registerKind } from '../catalog/index.ts';

registerKind<Record<string, unknown>>({
  kind: 'flowcharts',
  title: 'Flowcharts',
  description: 'User-built graphs of memory, plan, milestone, decision and LLM nodes (seed 003)',
  key: { by: 'id', param: 'flowchart_id' },
  async list({ store }, { limit, cursor }) {
    const offset = cursor === undefined ? 0 : Number(cursor);
    if (!Number.isInteger(offset) || offset < 0)
      throw new NoemaError('INVALID_INPUT', 'cursor is not a next_cursor from this listing', {
        status: 400,
        details: { cursor },
      });
    const page = await listFlowcharts(store, { limit, offset });
    const next = offset + page.items.length;
    return {
      items: page.items.map((f, i) => ({ ...f, cursor: String(offset + i + 1) })),
      next_cursor: next < page.count ? String(next) : null,
    };
  },
  cursorOf: (f) => String(f.cursor),
  async get({ store }, id) {
    const flowchart = await getFlowchart(store, id);
    return { ...flowchart, graph: await getGraph(store, id) } as unknown as Record<string, unknown>;
  },
  links: [
    { rel: 'api', href: (f) => `/api/flowcharts/${encodeURIComponent(String(f.flowchart_id))}` },
    { rel: 'runs', href: (f) => `/api/flowcharts/${encodeURIComponent(String(f.flowchart_id))}/runs` },
  ],
  columns: ['flowchart_id', 'name', 'graph_revision', 'updated_at'],
});

registerKind({
  kind: 'flowchart-runs',
  title: 'Flowchart runs',
  description: 'One run of a flowchart: status and node runs',
  key: { by: 'id', param: 'flowchart_run_id' },
  async get({ store, engine }, id) {
    if (!engine) throw new NoemaError('STORE_UNAVAILABLE', 'this server runs no engine', { status: 503 });
    return { ...(await getFlowRun(store, engine, id)) } as unknown as Record<string, unknown>;
  },
  links: [
    { field: 'flowchart_id', kind: 'flowcharts', rel: 'flowchart' },
    { rel: 'run', href: (r) => `/runs/${encodeURIComponent(String(r.flowchart_run_id))}` },
  ],
});
