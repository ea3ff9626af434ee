/**
 * Branch refs: a branch records (base_branch, base_seq) at creation and copies nothing; its
 * effective view is its own entries plus each ancestor's entries up to a narrowing cutoff.
 */
import { NoemaError } from '../../core/errors.ts';
import { assertHumanId } from '../../core/ids.ts';
import type { Queryable, Transaction } from '../../store/store.ts';

/** One source of an effective view: `branch`'s entries with `seq <= cutoff` (null = no cutoff). */
export interface EffectiveSource {
  branch: string;
  cutoff: number | null;
}

export type BranchRow = {
  name: string;
  base_branch: string | null;
  base_seq: number | null;
};

export const MAX_BRANCH_DEPTH = 64;

export function assertBranchName(name: unknown, field = 'branch'): string {
  return assertHumanId(name, field);
}

export function unknownBranch(workspace: string, name: string): NoemaError {
  return new NoemaError('UNKNOWN_BRANCH', `branch "${name}" does not exist in workspace "${workspace}"`, {
    details: { workspace, branch: name },
    hint: 'list branches with branchmind_branch_list or create one with branchmind_branch_create',
    status: 404,
  });
}

export async function getBranch(
  q: Queryable,
  workspace: string,
  name: string,
): Promise<BranchRow | undefined> {
  const row = await q.get<BranchRow>(
    'SELECT name, base_branch, base_seq FROM reasoning_branches WHERE workspace = ? AND name = ?',
    [workspace, name],
  );
  if (!row) return undefined;
  return {
    name: row.name,
    base_branch: row.base_branch ?? null,
    base_seq: row.base_seq === null || row.base_seq === undefined ? null : Number(row.base_seq),
  };
}

/** getBranch that throws UNKNOWN_BRANCH. */
export async function requireBranch(q: Queryable, workspace: string, name: string): Promise<BranchRow> {
  const row = await getBranch(q, workspace, name);
  if (!row) throw unknownBranch(workspace, name);
  return row;
}

/** Creates the branch (no base) if missing: canonical task/plan branches and the default `main`. */
export async function ensureBranch(tx: Transaction, workspace: string, name: string): Promise<void> {
  await tx.run(
    `INSERT INTO reasoning_branches (workspace, name, base_branch, base_seq, created_at_ms)
     VALUES (?, ?, NULL, NULL, ?) ON CONFLICT (workspace, name) DO NOTHING`,
    [workspace, name, Date.now()],
  );
}

/** Inserts a derived branch; false when the name is taken. */
export async function insertBranch(
  tx: Transaction,
  workspace: string,
  name: string,
  baseBranch: string,
  baseSeq: number,
): Promise<boolean> {
  const res = await tx.run(
    `INSERT INTO reasoning_branches (workspace, name, base_branch, base_seq, created_at_ms)
     VALUES (?, ?, ?, ?, ?) ON CONFLICT (workspace, name) DO NOTHING`,
    [workspace, name, baseBranch, baseSeq, Date.now()],
  );
  return res.changes > 0;
}

/**
 * The branch itself (cutoff null) then each ancestor with the narrowing cutoff (min of base_seq
 * along the path). Depth is bounded by MAX_BRANCH_DEPTH and a branch is never visited twice.
 */
export async function effectiveSources(
  q: Queryable,
  workspace: string,
  branch: string,
): Promise<EffectiveSource[]> {
  // One recursive query for the whole ancestry; depth-bounded so a stored cycle cannot loop it.
  const chain = await q.all<{
    name: string;
    base_branch: string | null;
    base_seq: number | null;
    depth: number;
  }>(
    `WITH RECURSIVE chain(name, base_branch, base_seq, depth) AS (
       SELECT name, base_branch, base_seq, 0 FROM reasoning_branches WHERE workspace = ? AND name = ?
       UNION ALL
       SELECT b.name, b.base_branch, b.base_seq, c.depth + 1
         FROM reasoning_branches b JOIN chain c ON b.workspace = ? AND b.name = c.base_branch
        WHERE c.depth < ?
     )
     SELECT name, base_branch, base_seq, depth FROM chain ORDER BY depth`,
    [workspace, branch, workspace, MAX_BRANCH_DEPTH],
  );
  const self = chain[0];
  if (!self) throw unknownBranch(workspace, branch);
  const sources: EffectiveSource[] = [{ branch: self.name, cutoff: null }];
  const seen = new Set([self.name]);
  let cutoff: number | null = null;
  for (let i = 0; i + 1 < chain.length; i++) {
    const child = chain[i] as (typeof chain)[number];
    const parent = chain[i + 1] as (typeof chain)[number];
    if (child.base_seq === null || child.base_seq === undefined || seen.has(parent.name)) break;
    const base = Number(child.base_seq);
    cutoff = cutoff === null ? base : Math.min(cutoff, base);
    seen.add(parent.name);
    sources.push({ branch: parent.name, cutoff });
  }
  return sources;
}
