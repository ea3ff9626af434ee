/**
 * The memory layer's front door: what code above it (runtimes, surfaces, the app) may use.
 * Modules under `reasoning/` and `tasks/` are internal; import from here, never from them
 * (`test/architecture.test.ts` enforces it). The schema is the light door `migrations.ts`.
 *
 * - **Reasoning memory** (seed 001's branchmind): workspaces with branches, append-only
 *   documents (notes and trace) with show/diff/merge/export, a versioned typed graph with
 *   three-way merge and conflicts, and thinking cards stored in both.
 * - **Tasks**: plans and tasks of a workspace that reasoning targets resolve to, with steps,
 *   revisions and a bounded radar/context/delta read.
 *
 * Every operation takes a `Store`, validates its input (a typed `NoemaError`, nothing written,
 * on bad input) and bounds what it returns (`max_chars`, `truncated`).
 */

// Long-term memory: scoped records with full-text retrieval (agent sessions, flowchart memory nodes).
export * from './long-term/index.ts';
// Reasoning memory: workspaces and branches.
export { branchCreate, branchList, checkout } from './reasoning/branch-ops.ts';
export { type BranchTreeRow, branchTree, listWorkspaces, type WorkspaceSummary } from './reasoning/browse.ts';
export { type DiffInput, type DiffPage, diff } from './reasoning/docs/diff-op.ts';
export { type ExportInput, exportSnapshot } from './reasoning/docs/export.ts';
// Reasoning memory: documents.
export {
  MERGE_DEFAULT_LIMIT,
  MERGE_MAX_LIMIT,
  type MergeInput,
  type MergeResult,
  merge,
} from './reasoning/docs/merge.ts';
export { type NotesCommitInput, notesCommit } from './reasoning/docs/notes.ts';
export {
  SHOW_DEFAULT_LIMIT,
  SHOW_MAX_LIMIT,
  type ShowInput,
  type ShowPage,
  show,
} from './reasoning/docs/show.ts';
// Reasoning memory: the typed graph and thinking cards.
export * from './reasoning/graph/index.ts';
export * from './reasoning/think/index.ts';
export { type InitResult, init, type StatusResult, status } from './reasoning/workspace-ops.ts';
export { DEFAULT_BRANCH } from './reasoning/workspaces.ts';
// Tasks.
export { describeTarget } from './tasks/describe.ts';
export {
  type MutationResult,
  tasksCreate,
  tasksDecompose,
  tasksDone,
  tasksEdit,
  tasksNote,
} from './tasks/mutate.ts';
export { tasksContext, tasksDelta, tasksRadar } from './tasks/read.ts';
export { TASK_STATUSES, type TaskRow, type TaskStatus } from './tasks/store-ops.ts';
