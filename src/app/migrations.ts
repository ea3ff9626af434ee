/**
 * The one ordered migration list, assembled from the subsystems that own them.
 * Id ranges: foundation 1–99, reasoning memory 100–199, tasks 200–299, sources 300–399,
 * engine 400–499, long-term memory 500–509, runtimes 510+.
 */

import { eventMigrations } from '../engine/events/migrations.ts';
import { engineMigrations } from '../engine/migrations.ts';
import { longTermMigrations } from '../memory/long-term/index.ts';
import { graphMigrations } from '../memory/reasoning/graph/migrations.ts';
import { reasoningMigrations } from '../memory/reasoning/migrations.ts';
import { tasksMigrations } from '../memory/tasks/migrations.ts';
import { agentMigrations } from '../runtimes/agent/migrations.ts';
import { flowMigrations } from '../runtimes/flow/migrations.ts';
import { worldMigrations } from '../runtimes/world/migrations.ts';
import { sourcesMigrations } from '../sources/migrations.ts';
import type { Migration } from '../store/migrations.ts';

const foundation: Migration[] = [
  {
    id: 1,
    name: 'foundation',
    up: () => ['CREATE TABLE noema_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)'],
  },
];

export const migrations: readonly Migration[] = [
  ...foundation,
  ...reasoningMigrations,
  ...graphMigrations,
  ...tasksMigrations,
  ...sourcesMigrations,
  ...engineMigrations,
  ...eventMigrations,
  ...longTermMigrations,
  ...worldMigrations,
  ...agentMigrations,
  ...flowMigrations,
];
