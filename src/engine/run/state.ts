/**
 * A run's in-memory state and the pure functions that advance it: channel reducers, the next
 * frontier from fired connectors, and a node's `input_context`. Replay and live execution share them,
 * so a state rebuilt from the journal equals the state the writer had.
 */
import type { InputContext, Json } from '../engine.ts';
import { type CompiledConnector, type CompiledGraph, firedConnectors } from '../graph/compile.ts';

/** One executed node as journaled: writes, output, attachments, route. */
export interface NodeDelta {
  n: string;
  w?: Record<string, Json>;
  o?: Json;
  a?: Json[];
  r?: string | string[];
}

export interface FrontierEntry {
  node: string;
  /** Solid connectors that triggered it (empty for the entry). */
  via: string[];
}

export interface RunState {
  /** Last journal sequence number applied. */
  seq: number;
  /** Super-steps applied. */
  step: number;
  frontier: FrontierEntry[];
  channels: Record<string, Json>;
  outputs: Record<string, { o?: Json; a?: Json[] }>;
}

export function initialState(graph: CompiledGraph): RunState {
  const channels: Record<string, Json> = {};
  for (const [name, spec] of graph.channels)
    channels[name] = spec.reducer === 'append' ? [] : (spec.default ?? null);
  return { seq: 0, step: 0, frontier: [{ node: graph.entry, via: [] }], channels, outputs: {} };
}

/** Applies channel writes with each channel's reducer (mutates `state`). */
export function applyWrites(
  graph: CompiledGraph,
  state: RunState,
  writes: Record<string, Json> | undefined,
): void {
  if (!writes) return;
  for (const name in writes) {
    if (!Object.hasOwn(writes, name)) continue;
    const value = writes[name] as Json;
    if (graph.channels.get(name)?.reducer === 'append') (state.channels[name] as Json[]).push(value);
    else state.channels[name] = value;
  }
}

/** Applies one super-step's node deltas and computes the next frontier (mutates `state`). */
export function applyStep(graph: CompiledGraph, state: RunState, deltas: readonly NodeDelta[]): void {
  const only = deltas.length === 1 ? deltas[0]! : null;
  if (only !== null && !Array.isArray(only.r)) {
    // The usual step, one node choosing at most one route: its frontier is made once and shared.
    applyWrites(graph, state, only.w);
    applyOutput(state, only);
    state.frontier = frontierOf(firedConnectors(graph, only.n, only.r));
    state.step += 1;
    return;
  }
  const frontier: FrontierEntry[] = [];
  // Small frontiers (the usual one node) are searched; a wide fan-out gets an index.
  let index: Map<string, FrontierEntry> | null = null;
  // Indexed loops: this runs on every step, mostly before V8 has optimized it.
  for (let i = 0; i < deltas.length; i++) {
    const d = deltas[i]!;
    applyWrites(graph, state, d.w);
    applyOutput(state, d);
    index = addFired(frontier, firedConnectors(graph, d.n, d.r), index);
  }
  state.frontier = frontier;
  state.step += 1;
}

/**
 * `applyStep` of a step of one node (`node`, its output and attachments) whose writes are given as
 * `[channel index, value, …]` (the order and values of its writes; null: none), indexes into
 * `channels` (the journal's sorted names, with whether each one appends), going to `frontier`: the
 * same state, without reading the writes again.
 */
export function applyOneNode(
  state: RunState,
  node: string,
  o: Json | undefined,
  a: Json[] | undefined,
  pairs: readonly Json[] | null,
  channels: { names: readonly string[]; appends: readonly boolean[] },
  frontier: FrontierEntry[],
): void {
  if (pairs !== null) {
    const values = state.channels;
    const { names, appends } = channels;
    for (let i = 0; i < pairs.length; i += 2) {
      const c = pairs[i] as number;
      if (appends[c] === true) (values[names[c]!] as Json[]).push(pairs[i + 1] as Json);
      else values[names[c]!] = pairs[i + 1] as Json;
    }
  }
  setOutput(state, node, o, a);
  state.frontier = frontier;
  state.step += 1;
}

/** The frontier a node choosing `route` (one or none) makes: shared, as in `applyStep`. */
export function nextFrontier(graph: CompiledGraph, node: string, route: string | undefined): FrontierEntry[] {
  return frontierOf(firedConnectors(graph, node, route));
}

function applyOutput(state: RunState, d: NodeDelta): void {
  setOutput(state, d.n, d.o, d.a);
}

/** A node's output and attachments, where it has either (the fields present only). */
function setOutput(state: RunState, node: string, o: Json | undefined, a: Json[] | undefined): void {
  if (o === undefined && a === undefined) return;
  const out: { o?: Json; a?: Json[] } = {};
  if (o !== undefined) out.o = o;
  if (a !== undefined) out.a = a;
  state.outputs[node] = out;
}

/**
 * Adds what `fired` triggers to `frontier`, in order of first trigger; a node triggered twice runs
 * once, with every connector that fired it. Returns the index by node once the frontier is wide.
 */
function addFired(
  frontier: FrontierEntry[],
  fired: readonly CompiledConnector[],
  index: Map<string, FrontierEntry> | null,
): Map<string, FrontierEntry> | null {
  for (let j = 0; j < fired.length; j++) {
    const c = fired[j]!;
    const e = index ? index.get(c.to) : findEntry(frontier, c.to);
    if (e) {
      e.via.push(c.id);
      continue;
    }
    const added = { node: c.to, via: [c.id] };
    frontier.push(added);
    if (index) index.set(c.to, added);
    else if (frontier.length > 8) index = new Map(frontier.map((f) => [f.node, f]));
  }
  return index;
}

/**
 * The frontier a single node's fired connectors make, per (cached, see firedConnectors) list of
 * them: shared by every step and run that fires it, so nothing may mutate it (applyStep builds
 * its own frontier whenever it merges).
 */
const frontiers = new WeakMap<readonly CompiledConnector[], FrontierEntry[]>();

function frontierOf(fired: readonly CompiledConnector[]): FrontierEntry[] {
  let frontier = frontiers.get(fired);
  if (frontier === undefined) {
    frontier = [];
    addFired(frontier, fired, null);
    frontiers.set(fired, frontier);
  }
  return frontier;
}

function findEntry(frontier: readonly FrontierEntry[], node: string): FrontierEntry | undefined {
  for (let i = 0; i < frontier.length; i++) if (frontier[i]!.node === node) return frontier[i];
  return undefined;
}

/** What a node's connectors feed it (seed 003 names). */
export function inputContextOf(graph: CompiledGraph, state: RunState, entry: FrontierEntry): InputContext {
  const ctx: InputContext = {
    upstream_nodes: [],
    context_only_upstream_nodes: [],
    attachment_only_upstream_nodes: [],
    propagated_attachments: [],
  };
  const incoming = graph.incoming.get(entry.node) ?? [];
  for (let i = 0; i < incoming.length; i++) {
    const c = incoming[i]!;
    const out = state.outputs[c.from];
    if (c.mode === 'solid') {
      if (!entry.via.includes(c.id)) continue;
      ctx.upstream_nodes.push({ node_id: c.from, connector_id: c.id, output: out?.o ?? null });
      if (out?.a) ctx.propagated_attachments.push(...out.a);
    } else if (c.mode === 'dotted') {
      if (out && out.o !== undefined)
        ctx.context_only_upstream_nodes.push({ node_id: c.from, connector_id: c.id, output: out.o });
    } else if (out?.a) {
      ctx.attachment_only_upstream_nodes.push({ node_id: c.from, connector_id: c.id, attachments: out.a });
      ctx.propagated_attachments.push(...out.a);
    }
  }
  return ctx;
}
