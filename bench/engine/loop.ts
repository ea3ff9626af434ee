/**
 * What the engine bench's sides share and the instruction counter runs too: the loop graph and the
 * raw commit floor's database (node:sqlite with Noema's pragmas, one table, one prepared INSERT).
 * Imports nothing of Noema at run time, so loading it changes neither side's heap.
 */
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import type { GraphSpec } from '../../src/engine/index.ts';

/** reason and tool each append one message; reason routes back to tool until `steps` are done. */
export function loopGraph(steps: number): GraphSpec {
  return {
    entry: 'reason',
    channels: { messages: { reducer: 'append' } },
    max_steps: steps + 10,
    nodes: [
      { id: 'reason', type: 'bench_reason', config: { steps } },
      { id: 'tool', type: 'bench_tool' },
      { id: 'end', type: 'terminal' },
    ],
    connectors: [
      { from: 'reason', to: 'tool', route: 'tool' },
      { from: 'reason', to: 'end', route: 'done' },
      { from: 'tool', to: 'reason' },
    ],
  };
}

/** The floor's database at `path`: one INSERT + COMMIT per step is `step()`. */
export function floorDatabase(path: string): { db: DatabaseSync; step: (body: string) => void } {
  const db = new DatabaseSync(path);
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = NORMAL');
  db.exec('CREATE TABLE steps (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
  const insert: StatementSync = db.prepare('INSERT INTO steps (body) VALUES (?)');
  return {
    db,
    step: (body) => {
      db.exec('BEGIN IMMEDIATE');
      insert.run(body);
      db.exec('COMMIT');
    },
  };
}
