// Child process for the idle-RSS figure, started the way `bin/noema.js` starts Noema (compile cache
// enabled, filled first by a short-lived child when cold): imports the engine and the SQLite store,
// opens and migrates a store, creates an engine, and reports RSS. Plain JavaScript, so that loading
// this file needs no TypeScript stripping. `--with-pg` also imports the PostgreSQL store (and with it
// the `pg` driver), which an embedded-SQLite process never loads (`openStore` imports it lazily).
import { mkdtempSync } from 'node:fs';
import { enableCompileCache } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileCacheDir, precompileOnce } from '../../bin/precompile.js';
import { memory } from './rss-memory.mjs';

const dir = compileCacheDir();
precompileOnce(dir);
enableCompileCache?.(dir);
const src = new URL('../../src/', import.meta.url);
const { migrations } = await import(new URL('app/migrations.ts', src).href);
const { createEngine } = await import(new URL('engine/index.ts', src).href);
const { migrate } = await import(new URL('store/migrations.ts', src).href);
const { SqliteStore } = await import(new URL('store/sqlite/sqlite-store.ts', src).href);

if (process.argv.includes('--with-pg')) await import(new URL('store/postgres/postgres-store.ts', src).href);
const store = new SqliteStore({ path: join(mkdtempSync(join(tmpdir(), 'noema-rss-')), 'n.db') });
await migrate(store, migrations);
const engine = createEngine(store);
await new Promise((r) => setTimeout(r, 200));
globalThis.gc?.();
console.log(JSON.stringify({ ...memory(), owner: typeof engine.owner }));
await store.close();
