/** branchmind_graph_apply: validates a batch of ops, then writes them as new versions in one transaction. */
import type { Store } from '../../../store/store.ts';
import { parseGraphOps } from './ops.ts';
import { type GraphRefInput, resolveGraphRef } from './ref.ts';
import { writeVersions } from './write.ts';

export interface GraphApplyInput extends GraphRefInput {
  ops: unknown[];
}

export interface GraphApplyOutput {
  branch: string;
  doc: string;
  applied: { nodes_upserted: number; nodes_deleted: number; edges_upserted: number; edges_deleted: number };
  last_seq: number;
  last_ts_ms: number;
}

/** Atomic: every op is validated before the transaction opens; one bad op applies nothing. */
export async function graphApply(store: Store, input: GraphApplyInput): Promise<GraphApplyOutput> {
  const ops = parseGraphOps(input.ops);
  return store.transaction(async (tx) => {
    const ref = await resolveGraphRef(tx, input);
    const written = await writeVersions(tx, ref.scope, ref.branch, ops);
    const applied = { nodes_upserted: 0, nodes_deleted: 0, edges_upserted: 0, edges_deleted: 0 };
    for (const op of ops) {
      if (op.kind === 'node') applied[op.content.deleted ? 'nodes_deleted' : 'nodes_upserted']++;
      else applied[op.content.deleted ? 'edges_deleted' : 'edges_upserted']++;
    }
    return {
      branch: ref.branch,
      doc: ref.scope.doc,
      applied,
      last_seq: written.last_seq,
      last_ts_ms: written.ts_ms,
    };
  });
}
