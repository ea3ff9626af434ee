/** MCP tools of the compact task surface (plans/tasks that branchmind targets resolve to). */
import {
  TASK_STATUSES,
  tasksContext,
  tasksCreate,
  tasksDecompose,
  tasksDelta,
  tasksDone,
  tasksEdit,
  tasksNote,
  tasksRadar,
} from '../../../memory/index.ts';
import type { McpToolDef } from '../tool.ts';
import { limit, maxChars, objectSchema, target, workspace } from './schema-parts.ts';

type In = Record<string, unknown>;
const as = <T>(input: In): T => input as T;

const id = { ...target, description: 'The plan or task id, e.g. "TASK-001".' };
const title = { type: 'string', minLength: 1, maxLength: 512, description: 'Short title.' };
const description = {
  type: 'string',
  maxLength: 20_000,
  description: 'Longer description (tabs and newlines allowed).',
};
const status = { type: 'string', enum: [...TASK_STATUSES], description: 'Task status.' };
const expectedRevision = {
  type: 'integer',
  minimum: 1,
  description: 'Optimistic concurrency: the revision you last read; a stale one is REVISION_MISMATCH.',
};
const eventNote =
  ' Emits one event (tasks_delta) and writes its event_id as a trace entry of the entity canonical branch.';

export const tasksTools: McpToolDef[] = [
  {
    name: 'tasks_create',
    description: `Creates a plan (kind "plan") or a task under a plan (kind "task", plan required). Ids PLAN-001, TASK-001 are allocated per workspace.${eventNote}`,
    inputSchema: objectSchema(
      {
        workspace,
        kind: { type: 'string', enum: ['plan', 'task'], description: 'What to create.' },
        title,
        description,
        plan: { ...target, description: 'For kind "task": the parent plan id, e.g. "PLAN-001".' },
      },
      ['workspace', 'kind', 'title'],
    ),
    handler: (input, { store }) => tasksCreate(store, as(input)),
  },
  {
    name: 'tasks_edit',
    description: `Edits title, description and/or status of a plan or task, given the expected revision.${eventNote}`,
    inputSchema: objectSchema(
      { workspace, id, expected_revision: expectedRevision, title, description, status },
      ['workspace', 'id', 'expected_revision'],
    ),
    handler: (input, { store }) => tasksEdit(store, as(input)),
  },
  {
    name: 'tasks_decompose',
    description: `Appends steps to a plan or task (numbered from 1).${eventNote}`,
    inputSchema: objectSchema(
      {
        workspace,
        id,
        steps: {
          type: 'array',
          minItems: 1,
          maxItems: 50,
          description: 'Steps to add, in order.',
          items: objectSchema({ title }, ['title']),
        },
        expected_revision: expectedRevision,
      },
      ['workspace', 'id', 'steps'],
    ),
    handler: (input, { store }) => tasksDecompose(store, as(input)),
  },
  {
    name: 'tasks_note',
    description: `Adds a progress note to a plan or task.${eventNote}`,
    inputSchema: objectSchema(
      {
        workspace,
        id,
        content: { type: 'string', minLength: 1, maxLength: 100_000, description: 'The note.' },
      },
      ['workspace', 'id', 'content'],
    ),
    handler: (input, { store }) => tasksNote(store, as(input)),
  },
  {
    name: 'tasks_done',
    description: `Marks a plan or task done, or (with step) one of its steps.${eventNote}`,
    inputSchema: objectSchema(
      {
        workspace,
        id,
        step: {
          type: 'integer',
          minimum: 1,
          description: 'Step number to mark done instead of the whole task.',
        },
        expected_revision: expectedRevision,
      },
      ['workspace', 'id'],
    ),
    handler: (input, { store }) => tasksDone(store, as(input)),
  },
  {
    name: 'tasks_context',
    description:
      'Lists plans and tasks in creation order, bounded; filter by plan and status. Paginate with cursor = next_cursor.',
    inputSchema: objectSchema(
      {
        workspace,
        plan: { ...target, description: 'Only this plan and its tasks.' },
        status,
        cursor: {
          type: ['integer', 'null'],
          minimum: 0,
          description: 'Continue after this position (next_cursor).',
        },
        limit: limit(50, 500, 'items'),
        max_chars: maxChars,
      },
      ['workspace'],
    ),
    handler: (input, { store }) => tasksContext(store, as(input)),
  },
  {
    name: 'tasks_radar',
    description:
      'One-screen snapshot of a plan or task: fields, revision, steps progress and next step, recent notes, last event, and reasoning_ref { branch, notes_doc, trace_doc, graph_doc } for branchmind_* tools.',
    inputSchema: objectSchema({ workspace, id, max_chars: maxChars }, ['workspace', 'id']),
    handler: (input, { store }) => tasksRadar(store, as(input)),
  },
  {
    name: 'tasks_delta',
    description:
      'Task events since a cursor (oldest first): event_id, type, target, payload. Pass next_cursor to continue.',
    inputSchema: objectSchema(
      {
        workspace,
        cursor: {
          type: ['integer', 'null'],
          minimum: 0,
          description: 'Return events after this cursor (0 or omitted: from the start).',
        },
        limit: limit(100, 1000, 'events'),
        max_chars: maxChars,
      },
      ['workspace'],
    ),
    handler: (input, { store }) => tasksDelta(store, as(input)),
  },
];
