/** Task-surface schema (ids 200–204): plans/tasks, steps, task notes, the event stream, id counters. */
import type { Migration } from '../../store/index.ts';

export const tasksMigrations: Migration[] = [
  {
    id: 200,
    name: 'tasks_counters',
    up: (d) => [
      `CREATE TABLE tasks_counters (
         workspace TEXT NOT NULL,
         name TEXT NOT NULL,
         value ${d.bigint} NOT NULL,
         PRIMARY KEY (workspace, name)
       )`,
    ],
  },
  {
    id: 201,
    name: 'tasks',
    up: (d) => [
      `CREATE TABLE tasks (
         workspace TEXT NOT NULL,
         id TEXT NOT NULL,
         ord ${d.bigint} NOT NULL,
         kind TEXT NOT NULL,
         plan_id TEXT,
         title TEXT NOT NULL,
         description TEXT NOT NULL,
         status TEXT NOT NULL,
         revision ${d.bigint} NOT NULL,
         created_at_ms ${d.bigint} NOT NULL,
         updated_at_ms ${d.bigint} NOT NULL,
         PRIMARY KEY (workspace, id)
       )`,
      'CREATE UNIQUE INDEX tasks_ord ON tasks (workspace, ord)',
    ],
  },
  {
    id: 202,
    name: 'task_steps',
    up: (d) => [
      `CREATE TABLE task_steps (
         workspace TEXT NOT NULL,
         task_id TEXT NOT NULL,
         step_no ${d.bigint} NOT NULL,
         title TEXT NOT NULL,
         done INTEGER NOT NULL,
         created_at_ms ${d.bigint} NOT NULL,
         PRIMARY KEY (workspace, task_id, step_no)
       )`,
    ],
  },
  {
    id: 203,
    name: 'task_notes',
    up: (d) => [
      `CREATE TABLE task_notes (
         id ${d.autoId},
         workspace TEXT NOT NULL,
         task_id TEXT NOT NULL,
         content TEXT NOT NULL,
         ts ${d.bigint} NOT NULL
       )`,
      'CREATE INDEX task_notes_by_task ON task_notes (workspace, task_id, id)',
    ],
  },
  {
    id: 204,
    name: 'task_events',
    // n: per-workspace event number (the tasks_delta cursor), allocated under the workspace lock.
    up: (d) => [
      `CREATE TABLE task_events (
         workspace TEXT NOT NULL,
         n ${d.bigint} NOT NULL,
         event_id TEXT NOT NULL UNIQUE,
         ts ${d.bigint} NOT NULL,
         type TEXT NOT NULL,
         target TEXT NOT NULL,
         payload TEXT NOT NULL,
         PRIMARY KEY (workspace, n)
       )`,
    ],
  },
];
