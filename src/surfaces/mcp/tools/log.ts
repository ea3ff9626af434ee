/** MCP tools over the reasoning log: workspace init/status, notes, show/export/diff/merge, branches. */
import {
  branchCreate,
  branchList,
  checkout,
  describeTarget,
  diff,
  exportSnapshot,
  init,
  merge,
  notesCommit,
  show,
  status,
} from '../../../memory/index.ts';
import type { McpToolDef } from '../tool.ts';
import { branchName, cursor, doc, limit, maxChars, objectSchema, target, workspace } from './schema-parts.ts';

// Handlers receive schema-validated input; the casts only restate what the schema guarantees.
type In = Record<string, unknown>;
const as = <T>(input: In): T => input as T;

const entryFields = {
  content: {
    type: 'string',
    minLength: 1,
    maxLength: 100_000,
    description: 'The note text (tabs and newlines allowed).',
  },
  title: { type: 'string', minLength: 1, maxLength: 512, description: 'Optional short title.' },
  format: {
    type: 'string',
    minLength: 1,
    maxLength: 64,
    description: 'Optional content format, e.g. "markdown" or "text".',
  },
  meta: { type: 'object', description: 'Optional JSON object of extra facts (at most 16 KiB serialized).' },
};

export const logTools: McpToolDef[] = [
  {
    name: 'branchmind_init',
    description:
      'Ensures the workspace storage is initialized (idempotent). Creates branch "main" as the checkout.',
    inputSchema: objectSchema({ workspace }, ['workspace']),
    handler: (input, { store }) => init(store, as(input)),
  },
  {
    name: 'branchmind_status',
    description:
      'Fast snapshot of a workspace: schema version, checkout branch, last seq, last ingested task event.',
    inputSchema: objectSchema({ workspace }, ['workspace']),
    handler: (input, { store }) => status(store, as(input)),
  },
  {
    name: 'branchmind_notes_commit',
    description:
      'Appends one note entry to the notes doc of a target (plan/task), or to an explicit (branch, doc). Give either target, or doc (and branch; default: the checkout branch).',
    inputSchema: objectSchema(
      {
        workspace,
        target,
        branch: branchName('Branch to write to (default: the workspace checkout). Not with target.'),
        doc: doc('Document to append to, e.g. "notes". Not with target.'),
        ...entryFields,
      },
      ['workspace', 'content'],
    ),
    handler: (input, { store }) => notesCommit(store, as(input)),
  },
  {
    name: 'branchmind_show',
    description:
      'Reads a bounded tail slice of a document (newest first) in the branch effective view: the base snapshot (base_branch entries with seq <= base_seq, recursively) plus the branch own entries. Paginate with cursor = next_cursor.',
    inputSchema: objectSchema(
      {
        workspace,
        target,
        doc_kind: {
          type: 'string',
          enum: ['notes', 'trace'],
          description: 'With target: which doc to read (default notes).',
        },
        branch: branchName('Branch to read (default: the workspace checkout). Not with target.'),
        doc: doc('Document to read, e.g. "notes". Not with target.'),
        cursor,
        limit: limit(20, 200),
        max_chars: maxChars,
      },
      ['workspace'],
    ),
    handler: (input, { store }) => show(store, as(input)),
  },
  {
    name: 'branchmind_export',
    description:
      'Bounded snapshot for fast resumption: target metadata, reasoning_ref, and the tails of its notes and trace. max_chars bounds the whole payload (oldest entries dropped first).',
    inputSchema: objectSchema(
      {
        workspace,
        target,
        notes_limit: limit(20, 200, 'notes'),
        trace_limit: limit(20, 200, 'trace entries'),
        max_chars: maxChars,
      },
      ['workspace', 'target'],
    ),
    handler: (input, { store }) => exportSnapshot(store, as(input), describeTarget),
  },
  {
    name: 'branchmind_diff',
    description:
      'Directional diff: entries in the effective view of (to, doc) that are not in the effective view of (from, doc), newest first. Merge-aware: a note and its merge copies are the same note. Reverse from/to for the other direction.',
    inputSchema: objectSchema(
      {
        workspace,
        from: branchName('The branch compared against.'),
        to: branchName('The branch whose extra entries are listed.'),
        doc: doc('Document (default "notes").'),
        cursor,
        limit: limit(20, 200),
        max_chars: maxChars,
      },
      ['workspace', 'from', 'to'],
    ),
    handler: (input, { store }) => diff(store, as(input)),
  },
  {
    name: 'branchmind_merge',
    description:
      'Idempotent merge of kind="note" entries from one branch into another: copies the notes of from that into lacks (source_event_id "merge:<branch>:<seq>"). dry_run=true only discovers. If has_more, call again with cursor=next_cursor.',
    inputSchema: objectSchema(
      {
        workspace,
        from: branchName('Branch to take notes from.'),
        into: branchName('Branch to copy notes into.'),
        doc: doc('Document (default "notes").'),
        cursor,
        limit: limit(100, 500, 'notes per call'),
        dry_run: { type: 'boolean', description: 'Discover only; write nothing (default false).' },
      },
      ['workspace', 'from', 'into'],
    ),
    handler: (input, { store }) => merge(store, as(input)),
  },
  {
    name: 'branchmind_branch_create',
    description:
      'Creates a branch from a snapshot of an existing branch (no copy): records base_branch and base_seq (the current global seq).',
    inputSchema: objectSchema(
      {
        workspace,
        name: branchName('New branch name (letters, digits, . _ - / : @ +; task/ and plan/ are reserved).'),
        from: branchName('Branch to branch from (default: the workspace checkout).'),
      },
      ['workspace', 'name'],
    ),
    handler: (input, { store }) => branchCreate(store, as(input)),
  },
  {
    name: 'branchmind_branch_list',
    description: 'Lists branch refs of a workspace (including canonical task/plan branches), by name.',
    inputSchema: objectSchema({ workspace, limit: limit(100, 1000, 'branches'), max_chars: maxChars }, [
      'workspace',
    ]),
    handler: (input, { store }) => branchList(store, as(input)),
  },
  {
    name: 'branchmind_checkout',
    description:
      'Sets the workspace current branch (the default for reads/writes without branch). Does not affect tasks.',
    inputSchema: objectSchema({ workspace, ref: branchName('Existing branch to check out.') }, [
      'workspace',
      'ref',
    ]),
    handler: (input, { store }) => checkout(store, as(input)),
  },
];
