/**
 * Flowcharts and node artifacts in the resource catalog (browser and `/<kind>` JSON), next to seed
 * 003's own `/api` routes: `/flowcharts`, `/flowcharts/:flowchart_id`, `/node-artifacts`,
 * `/node-artifacts/:artifact_id`, plans and milestones.
 */
import { type ErrorCode, invalidInput, NoemaError } from '../../../core/errors.ts';
import {
  getFlowchart,
  getFlowRun,
  getGraph,
  getMilestone,
  getNodeArtifact,
  getPlan,
  listFlowcharts,
  listNodeArtifacts,
} from '../../../runtimes/flow/index.ts';
import { llmUsageSum } from '../../../sources/index.ts';
import { registerKind } from '../catalog/index.ts';

const positive = (raw: string, code: ErrorCode, what: string): number => {
  if (!/^\d{1,15}$/.test(raw) || Number(raw) < 1)
    throw new NoemaError(code, `no ${what} ${raw}`, { status: 404, details: { [`${what}_id`]: raw } });
  return Number(raw);
};

const cursorOf = (raw: string | undefined): number | undefined => {
  if (raw === undefined) return undefined;
  if (!/^\d{1,15}$/.test(raw) || Number(raw) < 1)
    throw invalidInput("cursor must be a previous page's next_cursor");
  return Number(raw);
};

registerKind<Record<string, unknown>>({
  kind: 'flowcharts',
  title: 'Flowcharts',
  description: 'Seed 003 flowcharts with their saved graph and its validation',
  key: { by: 'id', param: 'flowchart_id' },
  async list({ store }, query) {
    // Offsets as cursors: flowcharts are few and ordered by creation.
    const offset = (cursorOf(query.cursor) ?? 1) - 1;
    const page = await listFlowcharts(store, { limit: query.limit, offset });
    const items = page.items.map((f, i) => ({ ...f, cursor: String(offset + i + 2) }));
    return {
      items,
      next_cursor: offset + items.length < page.count ? String(offset + items.length + 1) : null,
    };
  },
  cursorOf: (item) => String(item.cursor),
  async get({ store }, id) {
    const fc = await getFlowchart(store, id);
    return { ...fc, graph: await getGraph(store, id) } as unknown as Record<string, unknown>;
  },
  links: [
    {
      rel: 'artifacts',
      href: (f) => `/node-artifacts?flowchart_id=${encodeURIComponent(String(f.flowchart_id))}`,
    },
    { rel: 'api', href: (f) => `/api/flowcharts/${encodeURIComponent(String(f.flowchart_id))}` },
    { rel: 'runs', href: (f) => `/api/flowcharts/${encodeURIComponent(String(f.flowchart_id))}/runs` },
  ],
  columns: ['flowchart_id', 'name', 'graph_revision', 'created_at', 'updated_at'],
});

registerKind<Record<string, unknown>>({
  kind: 'node-artifacts',
  title: 'Node artifacts',
  description: 'Artifacts of flowchart memory, plan, milestone and decision nodes, newest first',
  key: { by: 'id', param: 'artifact_id' },
  filters: {
    flowchart_id: { type: 'string' },
    flowchart_run_id: { type: 'string', aliases: ['run'] },
    flowchart_node_id: { type: 'string', aliases: ['node'] },
    artifact_type: { type: 'enum', values: ['memory', 'plan', 'milestone', 'decision'], aliases: ['type'] },
    plan_id: { type: 'integer', minimum: 1 },
    milestone_id: { type: 'integer', minimum: 1 },
    memory_id: { type: 'integer', minimum: 1 },
  },
  async list({ store }, query) {
    const before = cursorOf(query.cursor);
    const page = await listNodeArtifacts(store, query.filters, {
      limit: query.limit,
      ...(before !== undefined ? { before } : {}),
    });
    const items = page.items as unknown as Array<Record<string, unknown>>;
    const last = items.at(-1);
    return { items, next_cursor: items.length === query.limit && last ? String(last.artifact_id) : null };
  },
  cursorOf: (item) => String(item.artifact_id),
  get: async ({ store }, id) =>
    (await getNodeArtifact(store, positive(id, 'UNKNOWN_ARTIFACT', 'artifact'))) as unknown as Record<
      string,
      unknown
    >,
  links: [
    { field: 'flowchart_id', kind: 'flowcharts', rel: 'flowchart' },
    { field: 'plan_id', kind: 'plans', rel: 'plan' },
    { field: 'milestone_id', kind: 'milestones', rel: 'milestone' },
  ],
  columns: [
    'artifact_id',
    'artifact_type',
    'flowchart_id',
    'flowchart_node_id',
    'flowchart_run_id',
    'created_at',
  ],
});

registerKind<Record<string, unknown>>({
  kind: 'plans',
  title: 'Plans',
  description: 'Plans written by flowchart plan nodes',
  key: { by: 'id', param: 'plan_id' },
  get: async ({ store }, id) =>
    (await getPlan(store, positive(id, 'UNKNOWN_PLAN', 'plan'))) as unknown as Record<string, unknown>,
  links: [{ rel: 'artifacts', href: (p) => `/node-artifacts?plan_id=${String(p.plan_id)}` }],
});

registerKind<Record<string, unknown>>({
  kind: 'milestones',
  title: 'Milestones',
  description: 'Milestones written by flowchart milestone nodes',
  key: { by: 'id', param: 'milestone_id' },
  get: async ({ store }, id) =>
    (await getMilestone(store, positive(id, 'UNKNOWN_MILESTONE', 'milestone'))) as unknown as Record<
      string,
      unknown
    >,
  links: [{ rel: 'artifacts', href: (m) => `/node-artifacts?milestone_id=${String(m.milestone_id)}` }],
});

registerKind({
  kind: 'flowchart-runs',
  title: 'Flowchart runs',
  description: 'One run of a flowchart: status and node runs',
  key: { by: 'id', param: 'flowchart_run_id' },
  async get({ store, engine }, id) {
    if (!engine) throw new NoemaError('STORE_UNAVAILABLE', 'this server runs no engine', { status: 503 });
    const run = await getFlowRun(store, engine, id);
    return { ...run, usage: await llmUsageSum(store, { run_ids: [id] }) } as unknown as Record<
      string,
      unknown
    >;
  },
  links: [
    { field: 'flowchart_id', kind: 'flowcharts', rel: 'flowchart' },
    { rel: 'run', href: (r) => `/runs/${encodeURIComponent(String(r.flowchart_run_id))}` },
  ],
});
