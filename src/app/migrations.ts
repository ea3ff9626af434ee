/**
 * The one ordered migration list, assembled from the subsystems that own them.
 * Id ranges: foundation 1–99, memory 100–199 (long-term memory 130–139), tasks 200–299, sources 300–399,
 * engine 400–499, runtimes 500+ (worlds 510–599, agents 600–699, flowcharts 700–799), HTTP surface 800–899 (full-text search across prompts, answers, messages and narrations 810–819),
 * observability 900–909.
 */

import { engineMigrations } from '../engine/migrations.ts';
import { memoryMigrations } from '../memory/migrations.ts';
import { observabilityMigrations } from '../observability/migrations.ts';
import { agentMigrations } from '../runtimes/agent/migrations.ts';
import { flowMigrations } from '../runtimes/flow/migrations.ts';
import { worldMigrations } from '../runtimes/world/migrations.ts';
import { sourcesMigrations } from '../sources/migrations.ts';
import type { Migration } from '../store/index.ts';
import { httpSessionMigrations } from './http-session-migrations.ts';
import { searchMigrations } from './search-migrations.ts';

const foundation: Migration[] = [
  {
    id: 1,
    name: 'foundation',
    up: () => ['CREATE TABLE noema_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)'],
  },
];

export const migrations: readonly Migration[] = [
  ...foundation,
  ...memoryMigrations,
  ...sourcesMigrations,
  ...engineMigrations,
  ...worldMigrations,
  ...agentMigrations,
  ...flowMigrations,
  ...httpSessionMigrations,
  ...searchMigrations,
  ...observabilityMigrations,
];
