/** branchmind_branch_create / branch_list / checkout: branch refs of a workspace. */
import { fitToBudget } from '../../core/budget.ts';
import { invalidInput, NoemaError } from '../../core/errors.ts';
import type { Queryable, Store } from '../../store/store.ts';
import {
  assertBranchName,
  type BranchRow,
  effectiveSources,
  insertBranch,
  MAX_BRANCH_DEPTH,
  requireBranch,
} from './branches.ts';
import { normLimit, normMaxChars } from './docs/params.ts';
import { currentSeq } from './seq.ts';
import { getWorkspace, requireWorkspace, setCheckout } from './workspaces.ts';

const RESERVED = /^(task|plan)\//;

export async function branchCreate(
  store: Store,
  input: { workspace: string; name: string; from?: string },
): Promise<{ workspace: string; branch: BranchRow }> {
  const name = assertBranchName(input.name, 'name');
  if (RESERVED.test(name)) {
    throw invalidInput('branch names starting with task/ or plan/ are reserved for canonical task branches', {
      field: 'name',
    });
  }
  const fromName = input.from === undefined ? undefined : assertBranchName(input.from, 'from');
  return await store.transaction(async (tx) => {
    const ws = await requireWorkspace(tx, input.workspace);
    const from = fromName ?? ws.checkout;
    const sources = await effectiveSources(tx, input.workspace, from);
    if (sources.length >= MAX_BRANCH_DEPTH + 1) {
      throw new NoemaError('BRANCH_TOO_DEEP', `branch "${from}" already has ${MAX_BRANCH_DEPTH} ancestors`, {
        details: { from, max_depth: MAX_BRANCH_DEPTH },
        hint: 'branch from a shallower branch (for example main)',
        status: 400,
      });
    }
    const baseSeq = await currentSeq(tx, input.workspace);
    if (!(await insertBranch(tx, input.workspace, name, from, baseSeq))) {
      throw new NoemaError('BRANCH_EXISTS', `branch "${name}" already exists`, {
        details: { branch: name },
        hint: 'choose another name, or use branchmind_checkout to switch to it',
        status: 409,
      });
    }
    return { workspace: input.workspace, branch: { name, base_branch: from, base_seq: baseSeq } };
  });
}

export async function branchList(
  q: Queryable,
  input: { workspace: string; limit?: number; max_chars?: number },
): Promise<Record<string, unknown>> {
  const limit = normLimit(input.limit, 100, 1000);
  const maxChars = normMaxChars(input.max_chars);
  const ws = await requireWorkspace(q, input.workspace);
  const rows = await q.all<BranchRow & { created_at_ms: number }>(
    'SELECT name, base_branch, base_seq, created_at_ms FROM reasoning_branches WHERE workspace = ? ORDER BY name LIMIT ?',
    [input.workspace, limit + 1],
  );
  const hasMore = rows.length > limit;
  const branches = rows.slice(0, limit).map((r) => ({
    name: r.name,
    base_branch: r.base_branch ?? null,
    base_seq: r.base_seq === null || r.base_seq === undefined ? null : Number(r.base_seq),
    created_at_ms: Number(r.created_at_ms),
  }));
  return fitToBudget({
    items: branches,
    maxChars,
    dropFrom: 'end',
    build: (kept, truncated) => ({
      workspace: input.workspace,
      checkout: ws.checkout,
      branches: kept,
      has_more: hasMore || kept.length < branches.length,
      truncated,
    }),
  }).value as Record<string, unknown>;
}

export async function checkout(
  store: Store,
  input: { workspace: string; ref: string },
): Promise<{ workspace: string; previous: string; current: string }> {
  const ref = assertBranchName(input.ref, 'ref');
  return await store.transaction(async (tx) => {
    const ws = await getWorkspace(tx, input.workspace);
    await requireBranch(tx, input.workspace, ref);
    await setCheckout(tx, input.workspace, ref);
    return { workspace: input.workspace, previous: ws.checkout, current: ref };
  });
}
