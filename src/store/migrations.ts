/**
 * The migration runner: one ordered list serves both dialects. Each subsystem owns its
 * migrations; the application assembles the list (`src/app/migrations.ts`).
 */
import { setTimeout as delay } from 'node:timers/promises';
import { NoemaError } from '../core/errors.ts';
import type { Dialect, Store } from './store.ts';

export interface Migration {
  /** Positive, unique, and strictly increasing along the list. */
  readonly id: number;
  readonly name: string;
  /** DDL statements for the dialect, run in order inside the migration's transaction. */
  readonly up: (d: Dialect) => readonly string[];
}

export interface MigrationReport {
  applied: Array<{ id: number; name: string }>;
  current: number;
}

function assertWellFormed(migrations: readonly Migration[]): void {
  let prev = 0;
  for (const m of migrations) {
    if (!Number.isInteger(m.id) || m.id <= prev) {
      throw new NoemaError('INTERNAL', `migration ids must increase: ${m.id} (${m.name}) after ${prev}`);
    }
    prev = m.id;
  }
}

/**
 * The common case on every start: every migration is applied and none is unknown. One read, no write
 * transaction (no write lock, no advisory lock); anything else — a missing table, a pending or an
 * unknown migration — takes the locked path below, which also reports SCHEMA_TOO_NEW.
 */
async function isCurrent(store: Store, migrations: readonly Migration[]): Promise<boolean> {
  let rows: Array<{ id: number }>;
  try {
    rows = await store.all<{ id: number }>('SELECT id FROM schema_migrations');
  } catch {
    return false;
  }
  if (rows.length !== migrations.length) return false;
  const applied = new Set(rows.map((r) => Number(r.id)));
  return migrations.every((m) => applied.has(m.id));
}

/** Times the pending migrations' transaction is tried when the database gives it up as busy. */
const MIGRATE_ATTEMPTS = 5;

/**
 * Applies every migration not yet recorded in `schema_migrations`, in one transaction with their
 * records. Refuses (changing nothing) a store whose schema has migrations this code does not know.
 * The whole run holds `lockKey('noema:migrations')` so processes starting together apply each
 * migration once. A transaction the database rolled back as busy (STORE_BUSY: a deadlock with
 * another session's locks — a deferred full-text batch, a process of the version before — or a lock
 * timeout) changed nothing and is tried again, a few times, after a short pause.
 */
export async function migrate(store: Store, migrations: readonly Migration[]): Promise<MigrationReport> {
  assertWellFormed(migrations);
  if (await isCurrent(store, migrations)) return { applied: [], current: migrations.at(-1)?.id ?? 0 };
  for (let attempt = 1; ; attempt++) {
    try {
      return await migratePending(store, migrations);
    } catch (err) {
      if (!(err instanceof NoemaError && err.code === 'STORE_BUSY') || attempt >= MIGRATE_ATTEMPTS) throw err;
      await delay(25 * attempt + Math.random() * 25);
    }
  }
}

async function migratePending(store: Store, migrations: readonly Migration[]): Promise<MigrationReport> {
  const applied: MigrationReport['applied'] = [];
  await store.transaction(async (tx) => {
    await tx.lockKey('noema:migrations');
    await tx.run(
      `CREATE TABLE IF NOT EXISTS schema_migrations (
         id ${store.dialect.bigint} PRIMARY KEY,
         name TEXT NOT NULL,
         applied_at ${store.dialect.bigint} NOT NULL
       )`,
    );
    const rows = await tx.all<{ id: number; name: string }>(
      'SELECT id, name FROM schema_migrations ORDER BY id',
    );
    const known = new Set(migrations.map((m) => m.id));
    const unknown = rows.filter((r) => !known.has(Number(r.id)));
    if (unknown.length > 0) {
      const newest = Math.max(...rows.map((r) => Number(r.id)));
      const codeNewest = migrations.at(-1)?.id ?? 0;
      throw new NoemaError(
        'SCHEMA_TOO_NEW',
        `the database schema (migration ${newest}) is newer than this Noema (knows up to ${codeNewest})`,
        {
          details: {
            database_migration: newest,
            code_migration: codeNewest,
            unknown: unknown.map((r) => r.name),
          },
          hint: 'upgrade Noema, or point NOEMA_DB at another database',
        },
      );
    }
    const done = new Set(rows.map((r) => Number(r.id)));
    for (const m of migrations) {
      if (done.has(m.id)) continue;
      for (const sql of m.up(store.dialect)) await tx.run(sql);
      await tx.run('INSERT INTO schema_migrations (id, name, applied_at) VALUES (?, ?, ?)', [
        m.id,
        m.name,
        Date.now(),
      ]);
      applied.push({ id: m.id, name: m.name });
    }
  });
  return { applied, current: migrations.at(-1)?.id ?? 0 };
}
