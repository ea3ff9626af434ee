/**
 * The memory layer's schema, in id order (reasoning memory 100–129, long-term memory 130–139, tasks 200–299): the light
 * front door the composition root (`src/app/migrations.ts`) reads without loading memory's code.
 */
import type { Migration } from '../store/index.ts';
import { longTermMigrations } from './long-term/migrations.ts';
import { graphMigrations } from './reasoning/graph/migrations.ts';
import { reasoningMigrations } from './reasoning/migrations.ts';
import { tasksMigrations } from './tasks/migrations.ts';

export const memoryMigrations: readonly Migration[] = [
  ...reasoningMigrations,
  ...graphMigrations,
  ...longTermMigrations,
  ...tasksMigrations,
];
