/** branchmind_init and branchmind_status: create a workspace (with branch `main`) and snapshot it. */
import { fitToBudget } from '../../core/budget.ts';
import type { Queryable, Store } from '../../store/store.ts';
import { ensureBranch } from './branches.ts';
import { normMaxChars } from './docs/params.ts';
import { currentSeq } from './seq.ts';
import { assertWorkspaceId, DEFAULT_BRANCH, ensureWorkspace, getWorkspace } from './workspaces.ts';

async function schemaVersion(q: Queryable): Promise<number> {
  const row = await q.get<{ v: number | null }>('SELECT MAX(id) AS v FROM schema_migrations');
  return Number(row?.v ?? 0);
}

export type InitResult = {
  workspace: string;
  storage_dir: string;
  schema_version: number;
  created: boolean;
  checkout: string;
};

export async function init(store: Store, input: { workspace: string }): Promise<InitResult> {
  const workspace = assertWorkspaceId(input.workspace);
  const created = await store.transaction(async (tx) => {
    const fresh = await ensureWorkspace(tx, workspace);
    await ensureBranch(tx, workspace, DEFAULT_BRANCH);
    return fresh;
  });
  const ws = await getWorkspace(store, workspace);
  return {
    workspace,
    storage_dir: store.location,
    schema_version: await schemaVersion(store),
    created,
    checkout: ws.checkout,
  };
}

export type StatusResult = {
  workspace: string;
  schema_version: number;
  checkout: string;
  last_seq: number;
  last_event_id?: string;
  last_event_ts?: number;
  truncated?: boolean;
};

export async function status(
  q: Queryable,
  input: { workspace: string; max_chars?: number },
): Promise<StatusResult> {
  const maxChars = normMaxChars(input.max_chars);
  const ws = await getWorkspace(q, input.workspace);
  const out: StatusResult = {
    workspace: ws.workspace,
    schema_version: await schemaVersion(q),
    checkout: ws.checkout,
    last_seq: await currentSeq(q, ws.workspace),
  };
  if (ws.last_event_id !== null) out.last_event_id = ws.last_event_id;
  if (ws.last_event_ts !== null) out.last_event_ts = ws.last_event_ts;
  // A fixed-size snapshot: nothing to drop, but the budget is still honoured (BUDGET_TOO_SMALL).
  return fitToBudget({ items: [], maxChars, dropFrom: 'end', build: () => ({ ...out, truncated: false }) })
    .value as StatusResult;
}
