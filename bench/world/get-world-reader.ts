/**
 * The world bench's `get_world` reader, run as a process of its own (as a server is: its heap holds
 * what reading needs, not the 10 000-entity world and 1 000 commits the bench process just built),
 * with one turn of the event loop before each timed call (as a server has between requests, when
 * the collector's scheduled work runs; a loop of back-to-back awaits on a synchronous store never
 * yields to it). `node get-world-reader.ts <store> <slug> <turns.json>` prints one JSON line of
 * samples in µs: `getWorld` (objects, what in-process and MCP callers get) and `getWorldJson` (the
 * UTF-8 pieces HTTP sends), each warm (the snapshot and the versions after it cached) and cold (the
 * cache emptied before every call), each form in a loop of its own, the same turns for all, the
 * first 10 calls of each loop untimed.
 */
import { readFileSync } from 'node:fs';
import { getWorld, getWorldJson } from '../../src/runtimes/world/index.ts';
import { clearSnapshotCache } from '../../src/runtimes/world/snapshots.ts';
import { openStore, parseStoreTarget } from '../../src/store/index.ts';

const WARMUP = 10;
const nextTurnOfLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

async function inProcess(url: string, slug: string, turns: number[]): Promise<object> {
  const store = await openStore(parseStoreTarget(url));
  try {
    const answer = {
      objects: (turn: number) => getWorld(store, { world_slug: slug, turn }),
      'JSON pieces': (turn: number) => getWorldJson(store, { world_slug: slug, turn }),
    };
    const out: Record<string, { wall: number[]; cpu: number[] }> = {};
    for (const mode of ['warm', 'cold'] as const) {
      for (const form of Object.keys(answer) as Array<keyof typeof answer>) {
        const wall: number[] = [];
        const cpu: number[] = [];
        for (let i = 0; i < turns.length; i++) {
          if (mode === 'cold') clearSnapshotCache();
          await nextTurnOfLoop();
          const c0 = process.cpuUsage();
          const t0 = process.hrtime.bigint();
          await answer[form](turns[i]!);
          const w = Number(process.hrtime.bigint() - t0) / 1000;
          const c = process.cpuUsage(c0);
          if (i >= WARMUP) {
            wall.push(w);
            cpu.push(c.user + c.system);
          }
        }
        out[`${form}, ${mode}`] = { wall, cpu };
      }
    }
    return out;
  } finally {
    await store.close();
  }
}

const [url, slug, turnsFile] = process.argv.slice(2);
const turns = JSON.parse(readFileSync(turnsFile!, 'utf8')) as number[];
process.stdout.write(`${JSON.stringify(await inProcess(url!, slug!, turns))}\n`);
