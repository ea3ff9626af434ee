/**
 * Targets: plans and tasks (`PLAN-###`, `TASK-###`) registered by the tasks subsystem, and the
 * canonical reasoning refs they resolve to. Tools accept either a target or an explicit (branch, doc).
 */
import { invalidInput, NoemaError } from '../../core/errors.ts';
import { assertHumanId } from '../../core/ids.ts';
import type { Queryable, Transaction } from '../../store/store.ts';
import { assertBranchName, requireBranch } from './branches.ts';

export interface ReasoningRef {
  branch: string;
  notes_doc: string;
  trace_doc: string;
  graph_doc: string;
}

export type DocKind = 'notes' | 'trace' | 'graph';

const TARGET = /^(PLAN|TASK)-\d{3,9}$/;

export function isTargetId(s: unknown): s is string {
  return typeof s === 'string' && TARGET.test(s);
}

export function assertTargetId(s: unknown, field = 'target'): string {
  if (!isTargetId(s)) {
    throw invalidInput(
      `${field} must look like PLAN-001 or TASK-001`,
      { field },
      'use an id returned by tasks_create',
    );
  }
  return s;
}

/** The canonical reasoning ref of a plan or task id (pure; does not check existence). */
export function reasoningRef(target: string): ReasoningRef {
  const prefix = target.startsWith('PLAN-') ? 'plan' : 'task';
  return {
    branch: `${prefix}/${target}`,
    notes_doc: 'notes',
    trace_doc: `${target}-trace`,
    graph_doc: `${target}-graph`,
  };
}

export function refDoc(ref: ReasoningRef, kind: DocKind): string {
  return kind === 'notes' ? ref.notes_doc : kind === 'trace' ? ref.trace_doc : ref.graph_doc;
}

/** Registers a target (called by tasks in the creating transaction). */
export async function registerTarget(tx: Transaction, workspace: string, target: string): Promise<void> {
  await tx.run(
    `INSERT INTO reasoning_targets (workspace, target, branch, created_at_ms) VALUES (?, ?, ?, ?)
     ON CONFLICT (workspace, target) DO NOTHING`,
    [workspace, target, reasoningRef(target).branch, Date.now()],
  );
}

/** Throws UNKNOWN_TARGET unless the target was created in this workspace. */
export async function requireTarget(q: Queryable, workspace: string, target: string): Promise<ReasoningRef> {
  assertTargetId(target);
  const row = await q.get('SELECT target FROM reasoning_targets WHERE workspace = ? AND target = ?', [
    workspace,
    target,
  ]);
  if (!row) {
    throw new NoemaError('UNKNOWN_TARGET', `target "${target}" does not exist in workspace "${workspace}"`, {
      details: { workspace, target },
      hint: 'create it with tasks_create, or list plans and tasks with tasks_context',
      status: 404,
    });
  }
  return reasoningRef(target);
}

/**
 * Resolves `target` to its canonical (branch, doc of `docKind`), or validates an explicit
 * (branch, doc) whose branch must exist (branch defaults to the workspace checkout). Exactly one
 * form must be given (INVALID_INPUT).
 */
export async function resolveTarget(
  q: Queryable,
  workspace: string,
  input: { target?: string; branch?: string; doc?: string },
  docKind: DocKind,
): Promise<{ branch: string; doc: string; target?: string }> {
  const hasTarget = input.target !== undefined;
  const hasExplicit = input.branch !== undefined || input.doc !== undefined;
  if (hasTarget && hasExplicit) {
    throw invalidInput('give either target or (branch, doc), not both', {
      fields: ['target', 'branch', 'doc'],
    });
  }
  if (hasTarget) {
    const ref = await requireTarget(q, workspace, input.target as string);
    return { branch: ref.branch, doc: refDoc(ref, docKind), target: input.target as string };
  }
  if (input.doc === undefined) {
    throw invalidInput('give either target, or doc (with branch, or the checkout branch is used)', {
      fields: ['target', 'branch', 'doc'],
    });
  }
  if (input.branch === undefined) {
    const ws = await q.get<{ checkout: string }>(
      'SELECT checkout FROM reasoning_workspaces WHERE workspace = ?',
      [workspace],
    );
    input = { ...input, branch: ws?.checkout ?? 'main' };
  }
  const branch = assertBranchName(input.branch);
  const doc = assertHumanId(input.doc, 'doc');
  await requireBranch(q, workspace, branch);
  return { branch, doc };
}
