/** Child process for the idle-RSS figure: imports the engine, opens a store, and reports RSS. */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { migrations } from '../../src/app/migrations.ts';
import { createEngine } from '../../src/engine/index.ts';
import { openStore } from '../../src/store/index.ts';

const store = await openStore(
  { kind: 'sqlite', path: join(mkdtempSync(join(tmpdir(), 'noema-rss-')), 'n.db') },
  { migrations },
);
const engine = createEngine(store);
await new Promise((r) => setTimeout(r, 200));
globalThis.gc?.();
console.log(JSON.stringify({ rss_mb: process.memoryUsage().rss / 1048576, owner: typeof engine.owner }));
await store.close();
