/**
 * Graph save, semantic half: problems that do not stop a snapshot being saved (the editor keeps a
 * half-built graph) but do stop it running — reported as `validation.valid` / `validation.errors`.
 */
import type { GraphSnapshot, GraphValidation, ValidationIssue } from '../types.ts';

export function validateGraphSemantics(g: GraphSnapshot): GraphValidation {
  const errors: ValidationIssue[] = [];
  const starts = g.nodes.filter((n) => n.node_type === 'start');
  if (starts.length !== 1)
    errors.push({
      code: 'START_COUNT',
      message: `a flowchart needs exactly one start node (found ${starts.length})`,
    });
  if (!g.nodes.some((n) => n.node_type === 'end'))
    errors.push({ code: 'NO_END', message: 'a flowchart needs at least one end node' });

  const solidOut = new Map<string, string[]>();
  for (const e of g.edges) {
    if (e.edge_mode !== 'solid') continue;
    solidOut.set(e.source_node_id, [...(solidOut.get(e.source_node_id) ?? []), e.target_node_id]);
  }
  const reached = new Set<string>();
  if (starts.length === 1) {
    const queue = [starts[0]!.id];
    while (queue.length > 0) {
      const id = queue.shift()!;
      if (reached.has(id)) continue;
      reached.add(id);
      queue.push(...(solidOut.get(id) ?? []));
    }
    for (const n of g.nodes)
      if (!reached.has(n.id))
        errors.push({
          code: 'UNREACHABLE_NODE',
          message: `node "${n.id}" is not reachable from the start node over solid connectors`,
          node_id: n.id,
        });
    if (
      !g.nodes.some((n) => n.node_type === 'end' && reached.has(n.id)) &&
      g.nodes.some((n) => n.node_type === 'end')
    )
      errors.push({ code: 'END_UNREACHABLE', message: 'no end node is reachable from the start node' });
  }
  for (const n of g.nodes) {
    if (n.node_type === 'end' && (solidOut.get(n.id)?.length ?? 0) > 0)
      errors.push({
        code: 'END_HAS_SUCCESSORS',
        message: `end node "${n.id}" has solid outgoing connectors`,
        node_id: n.id,
      });
    if (n.node_type !== 'decision') continue;
    const outs = g.edges.filter((e) => e.source_node_id === n.id && e.edge_mode === 'solid');
    if (outs.length === 0)
      errors.push({
        code: 'DECISION_WITHOUT_CONNECTORS',
        message: `decision node "${n.id}" has no solid outgoing connectors to choose from`,
        node_id: n.id,
      });
    for (const e of outs)
      if (!e.condition && (e.condition_text ?? '').trim() === '')
        errors.push({
          code: 'DECISION_CONDITION_MISSING',
          message: `connector "${e.id}" of decision node "${n.id}" has no condition_text or condition`,
          node_id: n.id,
          edge_id: e.id,
        });
  }
  for (const n of g.nodes)
    if (n.node_type === 'start' && g.edges.some((e) => e.target_node_id === n.id && e.edge_mode === 'solid'))
      errors.push({
        code: 'START_HAS_PREDECESSORS',
        message: 'the start node cannot be triggered by a connector',
        node_id: n.id,
      });
  return { valid: errors.length === 0, errors };
}
