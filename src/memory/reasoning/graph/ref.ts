/** Resolves the graph document a graph/think call addresses: a target's graph_doc or an explicit (branch, doc). */
import { assertHumanId } from '../../../core/ids.ts';
import type { Queryable } from '../../../store/store.ts';
import { type EffectiveSource, effectiveSources, requireBranch } from '../branches.ts';
import { resolveTarget } from '../targets.ts';
import { requireWorkspace } from '../workspaces.ts';
import type { GraphScope } from './types.ts';
import { pruneSources } from './view.ts';

/** Default graph document for the tools whose `doc` is optional (diff, merge, conflicts). */
export const DEFAULT_GRAPH_DOC = 'graph';

export interface GraphRefInput {
  workspace: string;
  target?: string;
  branch?: string;
  doc?: string;
}

export interface GraphRef {
  scope: GraphScope;
  branch: string;
  target?: string;
}

/**
 * Checks the workspace, then resolves target → (branch, graph_doc) or validates (branch, doc);
 * like notes_commit, an explicit doc without a branch means the workspace checkout branch.
 */
export async function resolveGraphRef(q: Queryable, input: GraphRefInput): Promise<GraphRef> {
  const ws = await requireWorkspace(q, input.workspace);
  const explicit: { target?: string; branch?: string; doc?: string } = {};
  if (input.target !== undefined) explicit.target = input.target;
  if (input.branch !== undefined) explicit.branch = input.branch;
  else if (input.target === undefined && input.doc !== undefined) explicit.branch = ws.checkout;
  if (input.doc !== undefined) explicit.doc = input.doc;
  const resolved = await resolveTarget(q, input.workspace, explicit, 'graph');
  const ref: GraphRef = { scope: { workspace: input.workspace, doc: resolved.doc }, branch: resolved.branch };
  if (resolved.target !== undefined) ref.target = resolved.target;
  return ref;
}

/** Validates a (branch, optional doc) pair used by diff/merge/conflicts; the branch must exist. */
export async function resolveBranchDoc(
  q: Queryable,
  workspace: string,
  branch: unknown,
  field: string,
  doc: unknown,
): Promise<{ branch: string; doc: string }> {
  const name = assertHumanId(branch, field);
  const d = doc === undefined ? DEFAULT_GRAPH_DOC : assertHumanId(doc, 'doc');
  await requireBranch(q, workspace, name);
  return { branch: name, doc: d };
}

/** The branch's effective sources for this doc, with empty ancestors pruned. */
export async function viewSources(
  q: Queryable,
  scope: GraphScope,
  branch: string,
): Promise<EffectiveSource[]> {
  return pruneSources(q, scope, await effectiveSources(q, scope.workspace, branch));
}
