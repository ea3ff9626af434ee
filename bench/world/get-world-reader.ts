/**
 * The world bench's `get_world` reader, run as a process of its own (as a server is: its heap holds
 * what reading needs, not the 10 000-entity world and 1 000 commits the bench process just built),
 * with one turn of the event loop before each timed call (as a server has between requests, when
 * the collector's scheduled work runs; a loop of back-to-back awaits on a synchronous store never
 * yields to it). `node get-world-reader.ts <store> <slug> <turns.json>` prints one JSON line of
 * samples in µs: `getWorld` (objects, what in-process callers get), `getWorldJson` (the UTF-8
 * pieces HTTP sends) and the MCP tool's answer as a transport writes it (`get_world` through the
 * world catalog's dispatcher, its JSON-RPC message serialized): `spliced`, the stored text spliced in
 * as its structured content (stdio, HTTP's JSON answers and event streams), into pooled memory given
 * back once made (as stdio and HTTP's JSON answers give it back once written), and `objects`, its structured content
 * the objects serialized (what a caller handing the dispatcher no splice gets), each warm (the snapshot and the versions after it cached) and cold (the
 * cache emptied before every call), each form in a loop of its own, the same turns for all, the
 * first 10 calls of each loop untimed. Also the floor of the object answer, `objects
 * floor, warm`: a record of the world's entities built from a Map of them (the loop `worldView`
 * runs), nothing read or overlaid — what any answer as objects of this many entities costs here;
 * and the floor of a cold object answer, `objects floor, cold`: the same record parsed from the
 * entities' JSON text (its UTF-8 bytes, as the store hands a snapshot over) with one `JSON.parse`,
 * nothing read — what building this many entity objects from stored text costs here; and the
 * floor of a cold JSON answer, `JSON pieces floor, cold`: the row of the turn's snapshot read by
 * the statement a cold read uses (its text as UTF-8 bytes where the store can), nothing parsed or
 * spliced — what handing over the stored text costs on this store, which every cold answer pays.
 */
import { readFileSync } from 'node:fs';
import { giveBack, takeBytes } from '../../src/core/byte-pool.ts';
import { getWorld, getWorldJson } from '../../src/runtimes/world/index.ts';
import { clearSnapshotCache } from '../../src/runtimes/world/snapshots.ts';
import { openStore, parseStoreTarget } from '../../src/store/index.ts';
import { catalogDispatcher } from '../../src/surfaces/mcp/catalogs.ts';
import { RawJsonSplice } from '../../src/surfaces/mcp/raw-json.ts';

const WARMUP = 10;
const nextTurnOfLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** `n` calls of `call`, each after a turn of the event loop (and `before`, untimed), the first 10 untimed. */
async function timedLoop(
  n: number,
  call: (i: number) => unknown,
  before?: () => void,
): Promise<{ wall: number[]; cpu: number[] }> {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < n; i++) {
    before?.();
    await nextTurnOfLoop();
    const c0 = process.cpuUsage();
    const t0 = process.hrtime.bigint();
    await call(i);
    const w = Number(process.hrtime.bigint() - t0) / 1000;
    const c = process.cpuUsage(c0);
    if (i >= WARMUP) {
      wall.push(w);
      cpu.push(c.user + c.system);
    }
  }
  return { wall, cpu };
}

async function inProcess(url: string, slug: string, turns: number[]): Promise<object> {
  const store = await openStore(parseStoreTarget(url));
  const mcp = catalogDispatcher('world');
  try {
    const answer = {
      objects: (turn: number) => getWorld(store, { world_slug: slug, turn }),
      'JSON pieces': (turn: number) => getWorldJson(store, { world_slug: slug, turn }),
      'MCP answer as objects': async (turn: number) => {
        const r = await mcp.call('get_world', { world_slug: slug, turn }, { store });
        if (r.isError) throw new Error(r.content[0]!.text);
        return JSON.stringify({ result: r, jsonrpc: '2.0', id: 1 });
      },
      'MCP answer spliced': async (turn: number) => {
        const rawJson = new RawJsonSplice();
        const r = await mcp.call('get_world', { world_slug: slug, turn }, { store, rawJson });
        if (r.isError) throw new Error(r.content[0]!.text);
        // Into pooled memory, given back as a transport gives it back once the answer is written.
        const bytes = rawJson.splice(JSON.stringify({ result: r, jsonrpc: '2.0', id: 1 }), takeBytes);
        giveBack(bytes);
        return bytes.length;
      },
    };
    const out: Record<string, { wall: number[]; cpu: number[] }> = {};
    for (const mode of ['warm', 'cold'] as const) {
      for (const form of Object.keys(answer) as Array<keyof typeof answer>) {
        out[`${form}, ${mode}`] = await timedLoop(
          turns.length,
          (i) => answer[form](turns[i]!),
          mode === 'cold' ? clearSnapshotCache : undefined,
        );
      }
    }
    const head = await getWorld(store, { world_slug: slug });
    const entities = new Map(Object.entries(head.entities));
    const record = () => {
      const o: Record<string, unknown> = {};
      for (const [k, e] of entities) o[k] = e;
      return o;
    };
    out['objects floor, warm'] = await timedLoop(turns.length, () => record());
    const text = Buffer.from(JSON.stringify(head.entities));
    out['objects floor, cold'] = await timedLoop(turns.length, () => JSON.parse(text.toString('utf8')));
    const row = `SELECT body, ${store.dialect.textBytes('entities_text')} AS entities_text, entities_index
      FROM world_snapshots WHERE world_slug = ? AND turn = (
        SELECT MAX(turn) FROM world_snapshots WHERE world_slug = ? AND turn <= ?)`;
    out['JSON pieces floor, cold'] = await timedLoop(turns.length, (i) =>
      store.get(row, [slug, slug, turns[i]!]),
    );
    return out;
  } finally {
    await store.close();
  }
}

const [url, slug, turnsFile] = process.argv.slice(2);
const turns = JSON.parse(readFileSync(turnsFile!, 'utf8')) as number[];
process.stdout.write(`${JSON.stringify(await inProcess(url!, slug!, turns))}\n`);
