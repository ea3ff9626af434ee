// Where the idle RSS of `noema-rss.mjs` comes from: RSS after each stage of the same start (compile
// cache enabled, migrations, engine, store imported, store opened, migrated, idle). Diagnostic only.
import { mkdtempSync } from 'node:fs';
import { enableCompileCache } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileCacheDir, precompileOnce } from '../../bin/precompile.js';

const mb = () => (process.memoryUsage().rss / 1048576).toFixed(1);
const out = [];
const dir = compileCacheDir();
precompileOnce(dir);
enableCompileCache?.(dir);
out.push(['start', mb()]);
const src = new URL('../../src/', import.meta.url);
const { migrations } = await import(new URL('app/migrations.ts', src).href);
out.push(['migrations imported', mb()]);
const { createEngine } = await import(new URL('engine/index.ts', src).href);
out.push(['engine imported', mb()]);
const { migrate } = await import(new URL('store/migrations.ts', src).href);
const { SqliteStore } = await import(new URL('store/sqlite/sqlite-store.ts', src).href);
out.push(['store imported', mb()]);
const store = new SqliteStore({ path: join(mkdtempSync(join(tmpdir(), 'noema-rss-')), 'n.db') });
out.push(['store open', mb()]);
await migrate(store, migrations);
out.push(['migrated', mb()]);
createEngine(store);
await new Promise((r) => setTimeout(r, 200));
out.push(['idle', mb(), JSON.stringify(process.memoryUsage())]);
console.log(out.map((x) => x.join(' ')).join('\n'));
await store.close();
