/**
 * Where thinking tools read and write: a target's canonical branch (or an explicit `branch`
 * override, e.g. a what-if branch) with its trace/graph docs, or an explicit (branch, docs).
 */
import { invalidInput } from '../../../core/errors.ts';
import { assertHumanId } from '../../../core/ids.ts';
import type { Queryable } from '../../../store/store.ts';
import { assertBranchName, requireBranch } from '../branches.ts';
import { requireTarget } from '../targets.ts';
import { requireWorkspace } from '../workspaces.ts';

export interface ThinkRefInput {
  workspace: string;
  target?: unknown;
  branch?: unknown;
  trace_doc?: unknown;
  graph_doc?: unknown;
}

export interface ThinkRef {
  branch: string;
  trace_doc: string;
  graph_doc: string;
}

/** `needTrace` is false for read tools, which take only a graph_doc in the explicit form. */
export async function resolveThinkRef(
  q: Queryable,
  input: ThinkRefInput,
  needTrace: boolean,
): Promise<ThinkRef> {
  const ws = await requireWorkspace(q, input.workspace);
  if (input.target !== undefined) {
    if (input.trace_doc !== undefined || input.graph_doc !== undefined) {
      throw invalidInput('with target, the docs come from the target; omit trace_doc and graph_doc', {
        fields: ['target', 'trace_doc', 'graph_doc'],
      });
    }
    const ref = await requireTarget(q, input.workspace, input.target as string);
    const branch = input.branch === undefined ? ref.branch : assertBranchName(input.branch);
    await requireBranch(q, input.workspace, branch);
    return { branch, trace_doc: ref.trace_doc, graph_doc: ref.graph_doc };
  }
  const missing = [...(needTrace ? ['trace_doc'] : []), 'graph_doc'].filter(
    (f) => input[f as keyof ThinkRefInput] === undefined,
  );
  if (missing.length > 0) {
    throw invalidInput(`give target, or ${missing.join(' and ')}`, { fields: ['target', ...missing] });
  }
  // Like notes_commit: explicit docs without a branch mean the workspace checkout branch.
  const branch = input.branch === undefined ? ws.checkout : assertBranchName(input.branch);
  await requireBranch(q, input.workspace, branch);
  return {
    branch,
    trace_doc: needTrace ? assertHumanId(input.trace_doc, 'trace_doc') : '',
    graph_doc: assertHumanId(input.graph_doc, 'graph_doc'),
  };
}
