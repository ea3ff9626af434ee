/**
 * The flowchart service: create/list/get/delete flowcharts and read/save their graphs. Plain
 * functions (input → result, or a NoemaError) so REST handlers, MCP tools and the CLI stay thin.
 */
import { invalidInput, NoemaError } from '../../core/errors.ts';
import { uuidv7 } from '../../core/ids.ts';
import type { Json } from '../../engine/index.ts';
import type { Queryable, Store } from '../../store/store.ts';
import { validateGraphSemantics } from './graph/semantic.ts';
import { ID_PATTERN, parseGraphSnapshot } from './graph/snapshot.ts';
import type { Flowchart, GraphEdge, GraphNode, GraphSnapshot, GraphValidation } from './types.ts';

export interface FlowchartGraph extends GraphSnapshot {
  flowchart_id: string;
  graph_revision: number;
  validation: GraphValidation;
}

interface FlowchartRow {
  flowchart_id: string;
  name: string;
  description: string;
  graph_revision: number;
  created_at: string;
  updated_at: string;
  [k: string]: unknown;
}

const toFlowchart = (r: FlowchartRow): Flowchart => ({
  flowchart_id: r.flowchart_id,
  name: r.name,
  description: r.description,
  graph_revision: Number(r.graph_revision),
  created_at: r.created_at,
  updated_at: r.updated_at,
});

export function unknownFlowchart(flowchart_id: string): NoemaError {
  return new NoemaError('UNKNOWN_FLOWCHART', `no flowchart "${flowchart_id}"`, {
    status: 404,
    details: { flowchart_id },
    hint: 'list flowcharts with GET /api/flowcharts',
  });
}

export async function getFlowchart(q: Queryable, flowchart_id: string): Promise<Flowchart> {
  const row = await q.get<FlowchartRow>('SELECT * FROM flowcharts WHERE flowchart_id = ?', [flowchart_id]);
  if (!row) throw unknownFlowchart(flowchart_id);
  return toFlowchart(row);
}

export interface CreateFlowchartInput {
  name: string;
  description?: string;
  /** Use this id (a human id) instead of a fresh one; an existing id is CONFLICT (409). */
  flowchart_id?: string;
  /** An initial graph snapshot (same rules as saveGraph). */
  graph?: unknown;
  /**
   * The content hash of what is imported: when a flowchart imported from the same content still
   * holds it, that flowchart is answered (`reused: true`) and nothing is created.
   */
  import_hash?: string;
}

export async function createFlowchart(
  store: Store,
  input: CreateFlowchartInput,
): Promise<Flowchart & { validation?: GraphValidation; reused?: true }> {
  if (typeof input?.name !== 'string' || input.name.trim() === '' || input.name.length > 200)
    throw invalidInput('name is required (1–200 characters)', { field: 'name' });
  if (input.description !== undefined && typeof input.description !== 'string')
    throw invalidInput('description must be a string', { field: 'description' });
  const id = input.flowchart_id ?? uuidv7();
  if (typeof id !== 'string' || !ID_PATTERN.test(id))
    throw invalidInput('invalid flowchart_id', { field: 'flowchart_id' });
  const snapshot = input.graph === undefined ? null : parseGraphSnapshot(input.graph);
  const now = new Date().toISOString();
  let reused: string | undefined;
  await store.transaction(async (tx) => {
    if (await tx.get('SELECT 1 AS x FROM flowcharts WHERE flowchart_id = ?', [id]))
      throw new NoemaError('CONFLICT', `flowchart "${id}" already exists`, {
        status: 409,
        details: { flowchart_id: id },
      });
    // Two processes importing the same content at once: the second insert waits for the first
    // and does nothing; it then answers the first one's flowchart.
    const inserted = await tx.run(
      `INSERT INTO flowcharts (flowchart_id, name, description, graph_revision, created_at, updated_at, import_hash)
       VALUES (?, ?, ?, 0, ?, ?, ?) ON CONFLICT (import_hash) DO NOTHING`,
      [id, input.name.trim(), input.description ?? '', now, now, input.import_hash ?? null],
    );
    if (inserted.changes === 0) {
      const row = await tx.get<{ flowchart_id: string }>(
        'SELECT flowchart_id FROM flowcharts WHERE import_hash = ?',
        [input.import_hash ?? null],
      );
      reused = row!.flowchart_id;
      return;
    }
    if (snapshot) await writeGraph(tx, id, snapshot, now);
  });
  if (reused !== undefined) return { ...(await getFlowchart(store, reused)), reused: true };
  const fc = await getFlowchart(store, id);
  return snapshot ? { ...fc, validation: validateGraphSemantics(snapshot) } : fc;
}

export interface Page {
  limit?: number;
  offset?: number;
}

export function pageOf(p: Page | undefined, max = 200): { limit: number; offset: number } {
  const limit = p?.limit ?? 50;
  const offset = p?.offset ?? 0;
  if (!Number.isInteger(limit) || limit < 1 || limit > max)
    throw invalidInput(`limit must be an integer 1..${max}`, { limit });
  if (!Number.isInteger(offset) || offset < 0)
    throw invalidInput('offset must be a non-negative integer', { offset });
  return { limit, offset };
}

export async function listFlowcharts(
  q: Queryable,
  page?: Page,
): Promise<{ items: Flowchart[]; count: number; limit: number; offset: number }> {
  const { limit, offset } = pageOf(page);
  const rows = await q.all<FlowchartRow>(
    'SELECT * FROM flowcharts ORDER BY created_at, flowchart_id LIMIT ? OFFSET ?',
    [limit, offset],
  );
  const total = await q.get<{ n: number }>('SELECT COUNT(*) AS n FROM flowcharts');
  return { items: rows.map(toFlowchart), count: Number(total?.n ?? 0), limit, offset };
}

/** Deletes the flowchart and its graph. Runs, artifacts, plans and milestones stay as history. */
export async function deleteFlowchart(
  store: Store,
  flowchart_id: string,
): Promise<{ deleted: true; flowchart_id: string }> {
  await store.transaction(async (tx) => {
    await getFlowchart(tx, flowchart_id);
    await tx.run('DELETE FROM flowchart_edges WHERE flowchart_id = ?', [flowchart_id]);
    await tx.run('DELETE FROM flowchart_nodes WHERE flowchart_id = ?', [flowchart_id]);
    await tx.run('DELETE FROM flowcharts WHERE flowchart_id = ?', [flowchart_id]);
  });
  return { deleted: true, flowchart_id };
}

async function writeGraph(tx: Queryable, flowchart_id: string, g: GraphSnapshot, now: string): Promise<void> {
  await tx.run('DELETE FROM flowchart_edges WHERE flowchart_id = ?', [flowchart_id]);
  await tx.run('DELETE FROM flowchart_nodes WHERE flowchart_id = ?', [flowchart_id]);
  let ord = 0;
  for (const n of g.nodes)
    await tx.run(
      'INSERT INTO flowchart_nodes (flowchart_id, flowchart_node_id, node_type, title, config_json, position_json, ord) VALUES (?, ?, ?, ?, ?, ?, ?)',
      [
        flowchart_id,
        n.id,
        n.node_type,
        n.title,
        JSON.stringify(n.config),
        n.position ? JSON.stringify(n.position) : null,
        ord++,
      ],
    );
  ord = 0;
  for (const e of g.edges)
    await tx.run(
      `INSERT INTO flowchart_edges (flowchart_id, edge_id, source_node_id, target_node_id, edge_mode, condition_text, route_key, condition_json, ord)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
        flowchart_id,
        e.id,
        e.source_node_id,
        e.target_node_id,
        e.edge_mode,
        e.condition_text,
        e.route_key,
        e.condition ? JSON.stringify(e.condition) : null,
        ord++,
      ],
    );
  await tx.run(
    'UPDATE flowcharts SET graph_revision = graph_revision + 1, updated_at = ? WHERE flowchart_id = ?',
    [now, flowchart_id],
  );
}

/** The stored config of one node; a row that is not a JSON object is a typed error naming it. */
export function parseStoredConfig(flowchart_id: string, node_id: string, raw: string): Record<string, Json> {
  let v: unknown;
  try {
    v = JSON.parse(raw);
  } catch {
    v = undefined;
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw new NoemaError(
      'FLOWCHART_CONFIG_MALFORMED',
      `flowchart ${flowchart_id} node ${node_id}: config_json is not a JSON object`,
      {
        details: { flowchart_id, flowchart_node_id: node_id },
        hint: 'fix or delete that flowchart_nodes row',
      },
    );
  return v as Record<string, Json>;
}

/** The stored snapshot (configs as saved) without validation. */
export async function readSnapshot(q: Queryable, flowchart_id: string): Promise<GraphSnapshot> {
  const nodes = await q.all<Record<string, unknown>>(
    'SELECT * FROM flowchart_nodes WHERE flowchart_id = ? ORDER BY ord',
    [flowchart_id],
  );
  const edges = await q.all<Record<string, unknown>>(
    'SELECT * FROM flowchart_edges WHERE flowchart_id = ? ORDER BY ord',
    [flowchart_id],
  );
  return {
    nodes: nodes.map(
      (r): GraphNode => ({
        id: r.flowchart_node_id as string,
        node_type: r.node_type as GraphNode['node_type'],
        title: r.title as string,
        config: parseStoredConfig(flowchart_id, r.flowchart_node_id as string, r.config_json as string),
        position: r.position_json ? JSON.parse(r.position_json as string) : null,
      }),
    ),
    edges: edges.map(
      (r): GraphEdge => ({
        id: r.edge_id as string,
        source_node_id: r.source_node_id as string,
        target_node_id: r.target_node_id as string,
        edge_mode: r.edge_mode as GraphEdge['edge_mode'],
        condition_text: (r.condition_text as string | null) ?? null,
        route_key: (r.route_key as string | null) ?? null,
        condition: r.condition_json ? JSON.parse(r.condition_json as string) : null,
      }),
    ),
  };
}

export async function getGraph(q: Queryable, flowchart_id: string): Promise<FlowchartGraph> {
  const fc = await getFlowchart(q, flowchart_id);
  const g = await readSnapshot(q, flowchart_id);
  return { flowchart_id, graph_revision: fc.graph_revision, ...g, validation: validateGraphSemantics(g) };
}

/**
 * Saves a snapshot: a structural violation is INVALID_INPUT (400) and changes nothing; an accepted
 * snapshot is normalized, stored, and answered with its semantic `validation`.
 */
export async function saveGraph(store: Store, flowchart_id: string, body: unknown): Promise<FlowchartGraph> {
  const snapshot = parseGraphSnapshot(body);
  await store.transaction(async (tx) => {
    await getFlowchart(tx, flowchart_id);
    await writeGraph(tx, flowchart_id, snapshot, new Date().toISOString());
    // Edited: no longer the content it was imported from.
    await tx.run('UPDATE flowcharts SET import_hash = NULL WHERE flowchart_id = ?', [flowchart_id]);
  });
  return getGraph(store, flowchart_id);
}
