/**
 * Legacy node configs: the startup migration seed 003 requires ("Hard-cut migration behavior" for
 * plan nodes, "Defaults and migration behavior" for memory nodes), and `importFlowchart`, which takes
 * an exported flowchart in either the legacy or the current shape.
 */
import { canonicalJson } from '../../core/canonical-json.ts';
import { invalidInput, NoemaError } from '../../core/errors.ts';
import { contentHash } from '../../core/hash.ts';
import type { Json } from '../../engine/index.ts';
import type { Store } from '../../store/store.ts';
import { createFlowchart, parseStoredConfig } from './flowcharts.ts';
import { normalizeNodeConfig } from './graph/node-config.ts';
import { type FlowNodeType, NODE_TYPES } from './types.ts';

const MIGRATED_TYPES: FlowNodeType[] = ['memory', 'plan', 'milestone', 'decision'];

export interface LegacyMigrationReport {
  /** Node rows whose config was rewritten. */
  migrated: Array<{ flowchart_id: string; flowchart_node_id: string; node_type: string }>;
}

/**
 * Rewrites stored specialized-node configs of older shapes to the canonical ones, in one
 * transaction. A config_json that is not a JSON object aborts (FLOWCHART_CONFIG_MALFORMED, one line
 * naming the flowchart and node) and, the transaction rolling back, changes nothing.
 */
export async function migrateLegacyFlowchartConfigs(store: Store): Promise<LegacyMigrationReport> {
  const migrated: LegacyMigrationReport['migrated'] = [];
  await store.transaction(async (tx) => {
    const rows = await tx.all<{
      flowchart_id: string;
      flowchart_node_id: string;
      node_type: string;
      config_json: string;
    }>(
      `SELECT flowchart_id, flowchart_node_id, node_type, config_json FROM flowchart_nodes
       WHERE node_type IN (${MIGRATED_TYPES.map(() => '?').join(', ')}) ORDER BY flowchart_id, ord`,
      MIGRATED_TYPES,
    );
    for (const r of rows) {
      const config = parseStoredConfig(r.flowchart_id, r.flowchart_node_id, r.config_json);
      const before = canonicalJson(config);
      normalizeNodeConfig(r.node_type as FlowNodeType, config, false);
      if (canonicalJson(config) === before) continue;
      await tx.run(
        'UPDATE flowchart_nodes SET config_json = ? WHERE flowchart_id = ? AND flowchart_node_id = ?',
        [JSON.stringify(config), r.flowchart_id, r.flowchart_node_id],
      );
      migrated.push({
        flowchart_id: r.flowchart_id,
        flowchart_node_id: r.flowchart_node_id,
        node_type: r.node_type,
      });
    }
    // A changed graph is a new revision: a process that compiled the old one compiles it again
    // (run/compiled-graphs.ts).
    for (const id of new Set(migrated.map((m) => m.flowchart_id)))
      await tx.run('UPDATE flowcharts SET graph_revision = graph_revision + 1 WHERE flowchart_id = ?', [id]);
  });
  return { migrated };
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Imports an exported flowchart. Accepted shapes:
 * - current: `{ flowchart_id?, name, description?, graph: { nodes, edges } }` (or `nodes`/`edges` at the top);
 * - legacy: the same with `flowchart: { … }` holding the metadata, nodes carrying `config_json` (a
 *   JSON string) instead of `config`, plan/memory configs of older shapes, and edges without `edge_mode`
 *   (they were all solid).
 * Legacy configs are migrated exactly as startup migration does, then saved with graph-save rules.
 * With `reuseIdentical`, a flowchart imported so from the same content (and not edited since) is
 * answered instead (`reused: true`).
 */
export async function importFlowchart(
  store: Store,
  doc: unknown,
  options: { reuseIdentical?: boolean } = {},
) {
  if (!isObject(doc)) throw invalidInput('an exported flowchart is a JSON object');
  const meta = isObject(doc.flowchart) ? doc.flowchart : doc;
  const graph = isObject(doc.graph) ? doc.graph : doc;
  if (!Array.isArray(graph.nodes) || !Array.isArray(graph.edges))
    throw invalidInput('an exported flowchart has nodes and edges (at the top or under "graph")');
  const flowchartId = (meta.flowchart_id ?? meta.id) as string | undefined;
  const nodes = graph.nodes.map((n, i) => {
    if (!isObject(n)) return n;
    const type = n.node_type ?? n.type;
    let config: Record<string, Json>;
    if (typeof n.config_json === 'string')
      config = parseStoredConfig(flowchartId ?? '(import)', String(n.id ?? i), n.config_json);
    else if (n.config === undefined || n.config === null) config = {};
    else if (isObject(n.config)) config = structuredClone(n.config) as Record<string, Json>;
    else
      throw new NoemaError(
        'FLOWCHART_CONFIG_MALFORMED',
        `flowchart ${flowchartId ?? '(import)'} node ${String(n.id ?? i)}: config is not a JSON object`,
        { details: { flowchart_id: flowchartId ?? null, flowchart_node_id: n.id ?? i } },
      );
    if ((NODE_TYPES as readonly unknown[]).includes(type))
      normalizeNodeConfig(type as FlowNodeType, config, false);
    const { config_json: _drop, type: _t, ...rest } = n;
    return { ...rest, node_type: type, config };
  });
  const edges = graph.edges.map((e) => {
    if (!isObject(e)) return e;
    const { from, to, mode, ...rest } = e;
    return {
      ...rest,
      source_node_id: e.source_node_id ?? from,
      target_node_id: e.target_node_id ?? to,
      edge_mode: e.edge_mode ?? mode ?? 'solid',
    };
  });
  return createFlowchart(store, {
    name: typeof meta.name === 'string' ? meta.name : 'imported flowchart',
    ...(typeof meta.description === 'string' ? { description: meta.description } : {}),
    ...(flowchartId !== undefined ? { flowchart_id: flowchartId } : {}),
    graph: { nodes, edges },
    // The content as given, so the same file is recognised whatever it normalises to.
    ...(options.reuseIdentical ? { import_hash: contentHash(doc) } : {}),
  });
}
