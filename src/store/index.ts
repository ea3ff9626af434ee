/** Public surface of the store layer. */

export { type Migration, type MigrationReport, migrate } from './migrations.ts';
export {
  DEFAULT_DB_PATH,
  type OpenStoreOptions,
  openStore,
  parseStoreTarget,
  type StoreTarget,
} from './open.ts';
// Not from listener.ts: that loads the pg driver, which only PostgreSQL stores need.
export { LISTENER_APPLICATION_NAME } from './postgres/application-name.ts';
export { redactUrl } from './redact-url.ts';
export type * from './store.ts';
export { FaultPatience, isStoreFault } from './store-fault.ts';
