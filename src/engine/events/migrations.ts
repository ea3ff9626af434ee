/**
 * Event-pipeline columns (ids 420–429). `event_epoch` numbers the claims of a run, so every process
 * that acts on a run stamps its events above those of the processes before it (see EngineEvent.seq).
 */
import type { Migration } from '../../store/index.ts';

export const eventMigrations: Migration[] = [
  {
    id: 420,
    name: 'engine events: claim epoch per run',
    up: (d) => [`ALTER TABLE engine_runs ADD COLUMN event_epoch ${d.bigint} NOT NULL DEFAULT 0`],
  },
];
