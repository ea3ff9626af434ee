/** The reasoning-memory workspace page: its branch tree (each branch from its base cutoff to its head). */
import { branchTreePicture } from '../../pictures/index.ts';
import type { KindContext } from '../catalog/kind.ts';
import { h, picture } from '../html/render.ts';
import { registerView } from '../html/views.ts';
import { memoryHrefs } from './memory-branches.ts';

type Tree = {
  workspace: string;
  checkout: string;
  truncated: boolean;
  branches: Array<{
    name: string;
    base_branch: string | null;
    base_seq: number | null;
    head_seq: number;
    entry_count: number;
  }>;
};

registerView('memory-workspaces', async (_ctx: KindContext, record) => {
  const tree = record as unknown as Tree;
  return {
    title: `Reasoning memory · ${tree.workspace}`,
    crumbs: [{ href: '/memory-workspaces', title: 'reasoning memory' }],
    body: h`<div class="chain"><span>checked out: ${tree.checkout}</span><span>${String(tree.branches.length)} branches</span></div>
<h2>Branch tree</h2>${
      tree.branches.length
        ? picture(branchTreePicture(tree.branches, `Branches of ${tree.workspace}`))
        : h`<p class="muted">No branches.</p>`
    }${tree.truncated ? h`<p class="muted">The first ${String(tree.branches.length)} branches by name are drawn.</p>` : ''}
<div class="scroll"><table><tr><th>branch</th><th>base</th><th>base cutoff</th><th>head seq</th><th>entries</th></tr>${tree.branches.map(
      (b) =>
        h`<tr><td><a href="${memoryHrefs.branch(tree.workspace, b.name)}">${b.name}</a>${
          b.name === tree.checkout ? h` <span class="badge s-running">checked out</span>` : ''
        }</td><td>${
          b.base_branch
            ? h`<a href="${memoryHrefs.branch(tree.workspace, b.base_branch)}">${b.base_branch}</a> · <a href="${memoryHrefs.diff(
                tree.workspace,
                b.base_branch,
                b.name,
              )}">diff</a>`
            : '—'
        }</td><td>${
          b.base_seq === null ? '—' : String(b.base_seq)
        }</td><td>${String(b.head_seq)}</td><td>${String(b.entry_count)}</td></tr>`,
    )}</table></div>`,
  };
});
