/**
 * A flowchart's engine graph, compiled once per saved revision: a run reads the flowchart's row (its
 * `graph_revision`), not its nodes and edges, and validates and compiles nothing, while the graph is
 * the one this process compiled last. Every write of a graph bumps the revision (saveGraph, the
 * legacy config migration); a flowchart deleted and created again under its id has a new
 * `created_at`, so neither is served an older graph.
 */

import { deepFreeze } from '../../../core/deep-freeze.ts';
import { NoemaError } from '../../../core/errors.ts';
import { lruPerHandle } from '../../../core/lru.ts';
import type { GraphSpec } from '../../../engine/index.ts';
import type { Queryable, Store } from '../../../store/store.ts';
import { readSnapshot } from '../flowcharts.ts';
import { validateGraphSemantics } from '../graph/semantic.ts';
import type { Flowchart } from '../types.ts';
import { compileFlowchart } from './compile.ts';

/** Flowcharts whose compiled graph a process keeps (the ones it runs most recently). */
export const COMPILED_FLOWCHARTS = 256;

const compiledOf = lruPerHandle<string, GraphSpec>(COMPILED_FLOWCHARTS);

/**
 * The engine graph of `fc`'s saved graph, compiled from its stored snapshot (read with `q`, the store
 * or a transaction of it) when this process has not compiled that revision of `store` yet; a graph
 * that cannot run is FLOWCHART_INVALID (409), not kept.
 */
export async function compiledGraph(store: Store, fc: Flowchart, q: Queryable = store): Promise<GraphSpec> {
  const byKey = compiledOf(store);
  const key = `${fc.flowchart_id}\u0000${fc.graph_revision}\u0000${fc.created_at}`;
  const hit = byKey.get(key);
  if (hit) return hit;
  const snapshot = await readSnapshot(q, fc.flowchart_id);
  const validation = validateGraphSemantics(snapshot);
  if (!validation.valid)
    throw new NoemaError(
      'FLOWCHART_INVALID',
      `flowchart ${fc.flowchart_id} cannot run: ${validation.errors[0]!.message}`,
      {
        status: 409,
        details: {
          flowchart_id: fc.flowchart_id,
          validation: validation as unknown as Record<string, unknown>,
        },
        hint: 'fix the graph (GET /api/flowcharts/{flowchart_id}/graph shows validation.errors)',
      },
    );
  // Frozen, as it is shared by every run of the revision (and so hashed once by the engine).
  const graph = deepFreeze(compileFlowchart(fc.flowchart_id, snapshot));
  byKey.set(key, graph);
  return graph;
}
