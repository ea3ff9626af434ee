/**
 * Child process for the idle-RSS figure: imports the engine and the SQLite store, opens and migrates a
 * store, creates an engine, and reports RSS. `--with-pg` also imports the PostgreSQL store (and with it
 * the `pg` driver), which an embedded-SQLite process never loads (`openStore` imports it lazily).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrations } from '../../src/app/migrations.ts';
import { createEngine } from '../../src/engine/index.ts';
import { migrate } from '../../src/store/migrations.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';

const withPg = process.argv.includes('--with-pg');
if (withPg) await import('../../src/store/postgres/postgres-store.ts');
const store = new SqliteStore({ path: join(mkdtempSync(join(tmpdir(), 'noema-rss-')), 'n.db') });
await migrate(store, migrations);
const engine = createEngine(store);
await new Promise((r) => setTimeout(r, 200));
globalThis.gc?.();
console.log(JSON.stringify({ rss_mb: process.memoryUsage().rss / 1048576, owner: typeof engine.owner }));
await store.close();
