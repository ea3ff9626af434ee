/** branchmind_notes_commit: append one note to a target's notes doc or to an explicit (branch, doc). */
import type { Store } from '../../../store/store.ts';
import { assertTargetId, resolveTarget } from '../targets.ts';
import { requireWorkspace } from '../workspaces.ts';
import { appendEntry, type DocEntry } from './entries.ts';
import { assertContent, assertFormat, assertMeta, assertTitle } from './validate.ts';

export interface NotesCommitInput {
  workspace: string;
  target?: string;
  branch?: string;
  doc?: string;
  content: string;
  title?: string;
  format?: string;
  meta?: Record<string, unknown>;
}

export async function notesCommit(store: Store, input: NotesCommitInput): Promise<{ entry: DocEntry }> {
  const content = assertContent(input.content);
  const title = assertTitle(input.title);
  const format = assertFormat(input.format);
  const meta = assertMeta(input.meta);
  if (input.target !== undefined) assertTargetId(input.target);
  return await store.transaction(async (tx) => {
    await requireWorkspace(tx, input.workspace);
    const where = await resolveTarget(tx, input.workspace, input, 'notes');
    const e: Parameters<typeof appendEntry>[1] = {
      workspace: input.workspace,
      branch: where.branch,
      doc: where.doc,
      kind: 'note',
      content,
    };
    if (title !== undefined) e.title = title;
    if (format !== undefined) e.format = format;
    if (meta !== undefined) e.meta = meta;
    const { entry } = await appendEntry(tx, e);
    return { entry };
  });
}
