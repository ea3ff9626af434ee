/**
 * Throwaway stores for tests and benchmarks: a temp SQLite file, or a fresh PostgreSQL
 * database created on the server named by NOEMA_TEST_POSTGRES_URL and dropped on close.
 * `STORES=sqlite,postgres` (the default) chooses which backends the suites run against.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { migrations as allMigrations } from '../app/migrations.ts';
import type { Migration } from '../store/index.ts';
import { openStore } from '../store/index.ts';
import type { Store } from '../store/store.ts';

export type StoreKind = 'sqlite' | 'postgres';

export const DEFAULT_TEST_POSTGRES_URL = 'postgres://postgres@127.0.0.1:5432/postgres';

export function testPostgresUrl(): string {
  return process.env.NOEMA_TEST_POSTGRES_URL || DEFAULT_TEST_POSTGRES_URL;
}

/** The backends selected by `STORES` (default: both). */
export function selectedStores(): StoreKind[] {
  const raw = process.env.STORES ?? 'sqlite,postgres';
  const kinds = raw
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const k of kinds) {
    if (k !== 'sqlite' && k !== 'postgres')
      throw new Error(`STORES: unknown store "${k}" (use sqlite,postgres)`);
  }
  return kinds as StoreKind[];
}

export interface TestStore {
  store: Store;
  /** The value a child process would put in NOEMA_DB to open the same store. */
  url: string;
  kind: StoreKind;
  /** Closes the store and deletes its data. */
  dispose(): Promise<void>;
}

/** A fresh, empty location for a store of `kind` (not opened). */
export async function createTestLocation(kind: StoreKind): Promise<{ url: string; drop(): Promise<void> }> {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'noema-test-'));
    return { url: join(dir, 'noema.db'), drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const admin = new pg.Client({ connectionString: testPostgresUrl() });
  await admin.connect();
  const name = `noema_t_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(testPostgresUrl());
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new pg.Client({ connectionString: testPostgresUrl() });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await c.end();
      }
    },
  };
}

/** Opens a fresh store of `kind`, migrated with `migrations` (default: every migration). */
export async function openTestStore(
  kind: StoreKind,
  migrations: readonly Migration[] | null = allMigrations,
): Promise<TestStore> {
  const location = await createTestLocation(kind);
  const store = await openStore(
    kind === 'sqlite' ? { kind, path: location.url } : { kind, url: location.url },
    migrations ? { migrations } : {},
  );
  return {
    store,
    url: location.url,
    kind,
    dispose: async () => {
      await store.close();
      await location.drop();
    },
  };
}
