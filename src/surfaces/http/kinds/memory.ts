/** Reasoning-memory workspaces in the catalog (seed 001): each with its branch tree. */
import { branchTree, listWorkspaces } from '../../../memory/index.ts';
import { registerKind } from '../catalog/index.ts';

registerKind<Record<string, unknown>>({
  kind: 'memory-workspaces',
  title: 'Reasoning memory',
  description: 'Reasoning-memory workspaces and their branches (base branch, base cutoff, head seq)',
  key: { by: 'id', param: 'workspace' },
  async list({ store }, { limit, cursor }) {
    const page = await listWorkspaces(store, { limit, ...(cursor !== undefined ? { cursor } : {}) });
    return { items: page.items as unknown as Record<string, unknown>[], next_cursor: page.next_cursor };
  },
  cursorOf: (w) => `${w.created_at_ms}:${w.workspace}`,
  get: async ({ store }, workspace) => ({ ...(await branchTree(store, { workspace })) }),
  columns: ['workspace', 'checkout', 'branch_count', 'created_at_ms'],
});
