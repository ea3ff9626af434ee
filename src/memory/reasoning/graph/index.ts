// Public API of the reasoning graph: versioned typed nodes/edges with branch views, 3-way merge and conflicts.
export { type GraphApplyInput, type GraphApplyOutput, graphApply } from './apply.ts';
export type { GraphConflict } from './conflict-store.ts';
export {
  type GraphConflictResolveOutput,
  type GraphConflictsOutput,
  graphConflictResolve,
  graphConflictShow,
  graphConflicts,
} from './conflicts.ts';
export { type GraphChange, type GraphDiffInput, type GraphDiffOutput, graphDiff } from './diff.ts';
export { RESERVED_ID_PREFIXES } from './keys.ts';
export { type GraphMergeInput, type GraphMergeOutput, graphMerge } from './merge.ts';
export { MAX_OPS, parseGraphOps } from './ops.ts';
export { type GraphQueryInput, type GraphQueryOutput, graphQuery } from './query.ts';
export { DEFAULT_GRAPH_DOC } from './ref.ts';
export type { EdgeKey, GraphEdge, GraphNode, GraphOp, Pagination } from './types.ts';
export { type GraphValidateInput, type GraphValidateOutput, graphValidate } from './validate-view.ts';
