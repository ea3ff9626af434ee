/**
 * The journal's row format. A step row is paid for on every super-step, so it names nodes, channels
 * and routes by their index in the run's graph (content-addressed, so the indexes never change for
 * the run) instead of repeating the names: a one-node step is `[node, writes, route, [output], attachments]`
 * with trailing absent fields dropped, e.g. `[0,[0,"hello"],1]`. Everything else stays readable JSON.
 */
import { NoemaError } from '../../core/errors.ts';
import type { Json } from '../engine.ts';
import type { CompiledGraph } from '../graph/compile.ts';
import type { NodeDelta } from '../run/state.ts';
import type { JournalEntry, StepEntry } from './entries.ts';

export interface Tables {
  nodes: string[];
  nodeIx: Map<string, number>;
  channels: string[];
  channelIx: Map<string, number>;
  /** Per node: the routes its solid connectors carry, sorted, and their indexes. */
  routes: Map<string, string[]>;
  routeIx: Map<string, Map<string, number>>;
}

const tablesOf = new WeakMap<CompiledGraph, Tables>();

// Sorted names, not authored order: the index must not depend on how the spec was serialized.
// The graph used last, ahead of the WeakMap: a run asks for the same graph's tables on every step.
let lastGraph: CompiledGraph | null = null;
let lastTables: Tables | null = null;

export function tables(graph: CompiledGraph): Tables {
  if (graph === lastGraph) return lastTables!;
  let t = tablesOf.get(graph);
  if (!t) {
    const nodes = [...graph.nodes.keys()].sort();
    const channels = [...graph.channels.keys()].sort();
    const routes = new Map<string, string[]>();
    const routeIx = new Map<string, Map<string, number>>();
    for (const [node, out] of graph.solidOut) {
      const names = [...new Set(out.flatMap((c) => (c.route === undefined ? [] : [c.route])))].sort();
      routes.set(node, names);
      routeIx.set(node, new Map(names.map((r, i) => [r, i])));
    }
    t = {
      nodes,
      nodeIx: new Map(nodes.map((n, i) => [n, i])),
      channels,
      channelIx: new Map(channels.map((c, i) => [c, i])),
      routes,
      routeIx,
    };
    tablesOf.set(graph, t);
  }
  lastGraph = graph;
  lastTables = t;
  return t;
}

function corrupt(graph: CompiledGraph, what: string): NoemaError {
  return new NoemaError('JOURNAL_CORRUPT', `journal row does not match graph ${graph.hash}: ${what}`, {
    details: { graph_hash: graph.hash },
  });
}

/** `name`'s index; `what` (and `of`, the node a route belongs to) only name it in the error. */
function indexOf(
  graph: CompiledGraph,
  ix: Map<string, number> | undefined,
  name: string,
  what: string,
  of?: string,
): number {
  const i = ix?.get(name);
  if (i === undefined)
    throw corrupt(graph, `unknown ${what}${of === undefined ? '' : ` of ${of}`} "${name}"`);
  return i;
}

function nameAt(graph: CompiledGraph, names: readonly string[] | undefined, i: Json, what: string): string {
  const name = typeof i === 'number' ? names?.[i] : undefined;
  if (name === undefined) throw corrupt(graph, `no ${what} at index ${JSON.stringify(i)}`);
  return name;
}

export function encodeDelta(graph: CompiledGraph, t: Tables, d: NodeDelta): Json[] {
  const routeIx = (r: string) => indexOf(graph, t.routeIx.get(d.n), r, 'route', d.n);
  const w: Json[] = [];
  for (const [name, v] of Object.entries(d.w ?? {}))
    if (v !== undefined) w.push(indexOf(graph, t.channelIx, name, 'channel'), v);
  const out: Json[] = [
    indexOf(graph, t.nodeIx, d.n, 'node'),
    d.w === undefined ? null : w,
    d.r === undefined ? null : Array.isArray(d.r) ? d.r.map(routeIx) : routeIx(d.r),
    d.o === undefined ? null : [d.o],
    d.a ?? null,
  ];
  while (out.length > 1 && out.at(-1) === null) out.pop();
  return out;
}

function decodeDelta(graph: CompiledGraph, t: Tables, raw: Json): NodeDelta {
  if (!Array.isArray(raw)) throw corrupt(graph, 'a node delta is not an array');
  const [n, w, r, o, a] = raw;
  const d: NodeDelta = { n: nameAt(graph, t.nodes, n ?? null, 'node') };
  if (Array.isArray(w)) {
    const pairs: Array<[string, Json]> = [];
    for (let i = 0; i + 1 < w.length; i += 2)
      pairs.push([nameAt(graph, t.channels, w[i] as Json, 'channel'), w[i + 1] as Json]);
    // fromEntries defines own properties, so a channel named `__proto__` stays a channel.
    d.w = Object.fromEntries(pairs);
  }
  if (r !== undefined && r !== null) {
    const routes = t.routes.get(d.n);
    d.r = Array.isArray(r)
      ? r.map((x) => nameAt(graph, routes, x, `route of ${d.n}`))
      : nameAt(graph, routes, r, `route of ${d.n}`);
  }
  if (Array.isArray(o)) d.o = o[0] as Json;
  if (Array.isArray(a)) d.a = a;
  return d;
}

/**
 * `JSON.stringify(encodeDelta(graph, t, d))`, built without its intermediate closures and copies:
 * this is the text of nearly every journal row (one node, no contracts). One `JSON.stringify` call
 * on purpose: text concatenated from pieces is a rope, which the driver must flatten when it binds
 * the row (about 1.5 µs for a 1 KB message, more than the whole encoding).
 */
export function encodeDeltaText(graph: CompiledGraph, t: Tables, d: NodeDelta): string {
  const n = indexOf(graph, t.nodeIx, d.n, 'node');
  let w: Json[] | null = null;
  if (d.w !== undefined) {
    w = [];
    for (const name in d.w) {
      if (!Object.hasOwn(d.w, name)) continue;
      const v = d.w[name];
      if (v === undefined) continue;
      w.push(indexOf(graph, t.channelIx, name, 'channel'), v);
    }
  }
  let r: Json = null;
  if (d.r !== undefined) {
    const ix = t.routeIx.get(d.n);
    r = Array.isArray(d.r) ? routeIndexes(graph, ix, d.n, d.r) : indexOf(graph, ix, d.r, 'route', d.n);
  }
  return oneNodeText(n, w, r, d.o, d.a);
}

/**
 * The one-node row text from its parts already indexed: the node's index, its writes as
 * `[channel index, value, …]` (null: no writes; no undefined value), its route's index or indexes
 * (null: no route), and its output and attachments (undefined: none). For a caller that has the indexes from
 * its own checks; `encodeDeltaText` is this after looking them up.
 */
export function oneNodeText(
  n: number,
  w: Json[] | null,
  r: Json,
  o: Json | undefined,
  a: Json[] | undefined,
): string {
  // Trailing absent fields are left out by building the array at its length (no truncation).
  if (a !== undefined && a !== null) return JSON.stringify([n, w, r, o === undefined ? null : [o], a]);
  if (o !== undefined) return JSON.stringify([n, w, r, [o]]);
  if (r !== null) return JSON.stringify([n, w, r]);
  if (w !== null) return JSON.stringify([n, w]);
  return JSON.stringify([n]);
}

// Apart from encodeDeltaText, for the same reason as encodeStep.
function routeIndexes(
  graph: CompiledGraph,
  ix: Map<string, number> | undefined,
  node: string,
  routes: string[],
): number[] {
  return routes.map((r) => indexOf(graph, ix, r, 'route', node));
}

/** The row body of `entry`; a one-node step without contracts or artifacts is a bare delta array. */
export function encodeEntry(graph: CompiledGraph, entry: JournalEntry): string {
  if (entry.k !== undefined) return JSON.stringify(entry);
  const t = tables(graph);
  if (entry.deltas.length === 1 && !entry.c && !entry.z && !entry.f)
    return encodeDeltaText(graph, t, entry.deltas[0]!);
  return encodeStep(graph, t, entry);
}

// Apart from encodeEntry: its closure would cost every row (most take the path above) a context.
function encodeStep(graph: CompiledGraph, t: Tables, entry: StepEntry): string {
  const deltas = entry.deltas.map((d) => encodeDelta(graph, t, d));
  const body: Record<string, Json> = { m: deltas };
  if (entry.c) body.c = entry.c;
  if (entry.z) body.z = entry.z;
  if (entry.f) body.f = entry.f;
  return JSON.stringify(body);
}

export function decodeEntry(graph: CompiledGraph, body: string): JournalEntry {
  const raw = JSON.parse(body) as Json;
  if (Array.isArray(raw)) return { deltas: [decodeDelta(graph, tables(graph), raw)] };
  if (raw === null || typeof raw !== 'object')
    throw corrupt(graph, 'a row is neither an array nor an object');
  if (raw.k !== undefined) return raw as unknown as JournalEntry;
  if (!Array.isArray(raw.m)) throw corrupt(graph, 'a step row has no deltas');
  const t = tables(graph);
  const step: StepEntry = { deltas: raw.m.map((d) => decodeDelta(graph, t, d)) };
  if (raw.c) step.c = raw.c as string[];
  if (raw.z) step.z = raw.z as string[];
  if (raw.f) step.f = raw.f as string[];
  return step;
}
