/** Public surface of the store layer. */

export { type Migration, type MigrationReport, migrate } from './migrations.ts';
export {
  DEFAULT_DB_PATH,
  type OpenStoreOptions,
  openStore,
  parseStoreTarget,
  type StoreTarget,
} from './open.ts';
export { LISTENER_APPLICATION_NAME } from './postgres/listener.ts';
export { redactUrl } from './redact-url.ts';
export type * from './store.ts';
