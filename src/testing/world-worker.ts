/**
 * A real world process for crash tests: `node world-worker.ts <world_slug>` runs one turn of the
 * world in NOEMA_DB with the sources env it inherits, a WORLD_LEASE_MS engine lease, and prints
 * the result as JSON. Tests kill it with SIGKILL mid-turn.
 */
import { migrations } from '../app/migrations.ts';
import { createWorldRuntime } from '../runtimes/world/index.ts';
import { openStore, parseStoreTarget } from '../store/index.ts';

const [slug] = process.argv.slice(2);
const store = await openStore(parseStoreTarget(process.env.NOEMA_DB), { migrations });
const runtime = createWorldRuntime(store, { leaseMs: Number(process.env.WORLD_LEASE_MS ?? 30_000) });
const result = await runtime.runTurn({ world_slug: slug ?? 'park' });
console.log(JSON.stringify(result));
await runtime.close();
await store.close();
