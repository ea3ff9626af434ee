/**
 * The one ordered migration list, assembled from the subsystems that own them.
 * Id ranges: foundation 1–99, reasoning memory 100–199, tasks 200–299, sources 300–399,
 * engine 400–499, runtimes 500+.
 */
import { engineMigrations } from '../engine/migrations.ts';
import { graphMigrations } from '../memory/reasoning/graph/migrations.ts';
import { reasoningMigrations } from '../memory/reasoning/migrations.ts';
import { reasoningSeqMigrations } from '../memory/reasoning/seq-migrations.ts';
import { tasksMigrations } from '../memory/tasks/migrations.ts';
import { sourcesMigrations } from '../sources/migrations.ts';
import { sourcesTraceMigrations } from '../sources/trace-migrations.ts';
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
  ...sourcesTraceMigrations,
  ...reasoningSeqMigrations,
  ...engineMigrations,
];
