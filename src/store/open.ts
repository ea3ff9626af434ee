/** Store selection: turns a `NOEMA_DB` value into an open, migrated store. */
import { resolve } from 'node:path';
import { NoemaError } from '../core/errors.ts';
import { type Migration, migrate } from './migrations.ts';
import { SqliteStore } from './sqlite/sqlite-store.ts';
import type { Store } from './store.ts';

/** Where the data lives. `setting` names the configuration it came from, for error messages. */
export type StoreTarget =
  | { kind: 'sqlite'; path: string; setting?: string }
  | { kind: 'postgres'; url: string; setting?: string };

export const DEFAULT_DB_PATH = './.noema/noema.db';

/**
 * Parses a store location: a `postgres://` (or `postgresql://`) URL, `:memory:`, or a file
 * path. Any other URL scheme, an empty value or control characters are `CONFIG_INVALID`.
 */
export function parseStoreTarget(value: string | undefined, setting = 'NOEMA_DB'): StoreTarget {
  const raw = value ?? DEFAULT_DB_PATH;
  const invalid = (why: string) =>
    new NoemaError('CONFIG_INVALID', `${setting} is invalid: ${why}`, {
      details: { setting },
      hint: `set ${setting} to a file path (e.g. ${DEFAULT_DB_PATH}) or a postgres:// URL`,
    });
  if (raw.trim() === '') throw invalid('empty value');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting control characters is the point
  if (/[\u0000-\u001f\u007f]/.test(raw)) throw invalid('contains control characters');
  if (/^postgres(ql)?:\/\//i.test(raw)) {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw invalid('not a valid postgres:// URL');
    }
    if (!url.hostname && !url.searchParams.get('host')) throw invalid('the postgres:// URL names no host');
    return { kind: 'postgres', url: raw, setting };
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(raw))
    throw invalid(`unsupported scheme in "${raw.split('://')[0]}://"`);
  if (raw === ':memory:') return { kind: 'sqlite', path: raw, setting };
  if (raw.endsWith('/')) throw invalid('names a directory, not a database file');
  return { kind: 'sqlite', path: resolve(raw), setting };
}

export interface OpenStoreOptions {
  /** Applied on open; omit to open without migrating. */
  migrations?: readonly Migration[];
}

export async function openStore(target: StoreTarget, options: OpenStoreOptions = {}): Promise<Store> {
  // The pg driver is loaded only for PostgreSQL targets: embedded processes stay lighter.
  const store: Store =
    target.kind === 'postgres'
      ? await (await import('./postgres/postgres-store.ts')).PostgresStore.connect({
          url: target.url,
          ...(target.setting ? { setting: target.setting } : {}),
        })
      : new SqliteStore({ path: target.path, ...(target.setting ? { setting: target.setting } : {}) });
  if (options.migrations) {
    try {
      await migrate(store, options.migrations);
    } catch (err) {
      await store.close();
      throw err;
    }
  }
  return store;
}
