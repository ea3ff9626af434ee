/** Public surface of the store layer. */
export type * from './store.ts';
export { type Migration, type MigrationReport, migrate } from './migrations.ts';
export { DEFAULT_DB_PATH, type OpenStoreOptions, openStore, parseStoreTarget, type StoreTarget } from './open.ts';
export { redactUrl } from './postgres/postgres-store.ts';
