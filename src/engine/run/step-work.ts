/**
 * What a super-step gathers from its nodes before it commits (`StepWork`): each node's result checked
 * and indexed once (`collect`) — its writes against the graph's channels, its route against the
 * node's connectors — with the contracts, artifacts and waits it creates. The step
 * (step.ts) runs the nodes and commits what is gathered here.
 */
import { uuidv7 } from '../../core/ids.ts';
import type { JsonSchema, SchemaRegistry } from '../../core/schema-registry.ts';
import { viewOf } from '../contracts/contract-store.ts';
import { createContract, transition } from '../contracts/transitions.ts';
import type { ContractView, Json, NodeResult, RunError } from '../engine.ts';
import { unknownRoutes } from '../graph/compile.ts';
import type { EngineDeps } from './deps.ts';
import type { NodeDelta } from './state.ts';
import { type GraphPlan, type NodePlan, type RoutePlan, routePlan } from './step-plan.ts';

export type StepArtifact = { artifact_id: string; node_id: string; artifact_type: string; payload: Json };

/**
 * Shared empty lists, never pushed to: most steps create no contract or artifact, so a step's lists
 * start as these and are replaced by their own on the first push (see `add`).
 */
const NO_VIEWS: ContractView[] = [];
const NO_ARTIFACTS: StepArtifact[] = [];

/** `list` with `item` added: a new list in place of a shared empty one. */
function add<T>(list: T[], item: T, empty: T[]): T[] {
  if (list === empty) return [item];
  list.push(item);
  return list;
}

type Collected = Extract<NodeResult, { kind: 'ok' | 'suspend' }>;

export interface StepWork {
  /**
   * The step's deltas, made as its nodes are collected when it runs several; null for a step of
   * one node (the usual one), which commits from `node`, `result` and `pairs` (see deltasOf).
   */
  deltas: NodeDelta[] | null;
  contracts: ContractView[];
  /** Existing PENDING contracts a suspending node moved to WAITING (`wait_on`). */
  moved: ContractView[];
  waiting: ContractView[];
  artifacts: StepArtifact[];
  /** Every node of the step said it may commit with the run's next transaction. */
  withNext: boolean;
  /** The step creates or moves no contract and persists no artifact (its lists are empty). */
  plain: boolean;
  /**
   * The last node collected, its writes as `[channel index, value, …]` (null: none) and whether
   * some value is undefined (left out of the row), and its route's plan (null: several routes):
   * what a step of one node commits from, without reading its writes or the graph again.
   */
  node: NodePlan | null;
  result: Collected | null;
  pairs: Json[] | null;
  holes: boolean;
  route: RoutePlan | null;
}

/** A step's work before its first node is collected; `several`: its frontier has more than one node. */
export function newStepWork(several: boolean): StepWork {
  return {
    deltas: several ? [] : null,
    contracts: NO_VIEWS,
    moved: NO_VIEWS,
    waiting: NO_VIEWS,
    artifacts: NO_ARTIFACTS,
    withNext: true,
    plain: true,
    node: null,
    result: null,
    pairs: null,
    holes: false,
    route: null,
  };
}

/** Checks a node's result and adds its delta, contracts and artifacts to the step; returns an error to fail the run. */
export function collect(
  deps: EngineDeps,
  plan: GraphPlan,
  np: NodePlan,
  result: NodeResult,
  work: StepWork,
  schemas: SchemaRegistry | undefined,
  runContracts: ReadonlyMap<string, ContractView>,
): RunError | null {
  if (result.kind !== 'ok' && result.kind !== 'suspend') return null;
  const node = np.id;
  const writes = result.writes;
  // The one pass over the writes: each channel checked and indexed (the row's and the state's form).
  const channelIx = plan.tables.channelIx;
  let pairs: Json[] | null = null;
  let holes = false;
  for (const name in writes) {
    if (!Object.hasOwn(writes, name)) continue;
    const c = channelIx.get(name);
    if (c === undefined) return unknownChannel(node, name);
    const v = writes[name] as Json;
    if (v === undefined) holes = true;
    if (pairs === null) pairs = [c, v];
    else pairs.push(c, v);
  }
  const route = result.route;
  let rp: RoutePlan | null = null;
  if (route === undefined) rp = np.none;
  else if (typeof route === 'string') {
    rp = routePlan(plan, np, route);
    if (rp === null) return routeUnknown(node, [route]);
  } else {
    const unknown = unknownRoutes(plan.graph, node, route);
    if (unknown.length > 0) return routeUnknown(node, unknown);
  }
  // Taken now, as the node returned it: later nodes of the step may run (and await) before the commit.
  if (work.deltas !== null) work.deltas.push(deltaOf(node, result, pairs !== null));
  work.node = np;
  work.result = result;
  work.pairs = pairs;
  work.holes = holes;
  work.route = rp;
  if (result.kind !== 'ok' || result.commitsWithNext !== true) work.withNext = false;
  if (result.kind === 'ok' && !result.contracts && !result.artifacts) return null;
  // Set before the lists change: a step that fails below is not committed anyway.
  work.plain = false;
  const now = deps.now();
  for (const nc of result.contracts ?? []) {
    work.contracts = add(
      work.contracts,
      viewOf(createContract(uuidv7(), nc.action_type, nc.payload, `node:${node}`, now), node, null),
      NO_VIEWS,
    );
  }
  for (const a of result.artifacts ?? [])
    work.artifacts = add(
      work.artifacts,
      { artifact_id: uuidv7(), node_id: node, artifact_type: a.artifact_type, payload: a.payload },
      NO_ARTIFACTS,
    );
  if (result.kind === 'suspend' && 'wait_on' in result) {
    const existing = runContracts.get(result.wait_on);
    const p = existing?.payload as Record<string, Json> | null | undefined;
    const schema = p && typeof p === 'object' ? p.response_schema : undefined;
    const check = schema === undefined || !schemas ? null : schemas.checkSchema(schema as JsonSchema);
    if (existing?.status !== 'PENDING' || !check?.ok) {
      return {
        code: 'SUSPEND_INVALID',
        message: `node ${node} suspended on ${result.wait_on}, which is not a PENDING contract of this run with a valid payload.response_schema`,
        node_id: node,
      };
    }
    const waiting = viewOf(
      transition(existing, { to: 'WAITING', actor: `node:${node}`, at: now }),
      existing.node_id,
      null,
    );
    work.moved = add(work.moved, waiting, NO_VIEWS);
    work.waiting = add(work.waiting, waiting, NO_VIEWS);
  } else if (result.kind === 'suspend') {
    const payload = result.contract.payload as Record<string, Json> | null;
    const schema = payload && typeof payload === 'object' ? payload.response_schema : undefined;
    const check = schema === undefined || !schemas ? null : schemas.checkSchema(schema as JsonSchema);
    if (!check?.ok) {
      return {
        code: 'SUSPEND_INVALID',
        message: `node ${node} suspended without a valid payload.response_schema`,
        node_id: node,
      };
    }
    const created = createContract(
      uuidv7(),
      result.contract.action_type,
      result.contract.payload,
      `node:${node}`,
      now,
    );
    const waiting = viewOf(
      transition(created, { to: 'WAITING', actor: `node:${node}`, at: now }),
      node,
      null,
    );
    work.contracts = add(work.contracts, waiting, NO_VIEWS);
    work.waiting = add(work.waiting, waiting, NO_VIEWS);
  }
  return null;
}

/**
 * A node's delta. One literal with every field (absent ones undefined): every delta has one shape,
 * where adding the present fields one by one made a chain of shapes the step's readers had to tell apart.
 */
function deltaOf(node: string, result: Collected, written: boolean): NodeDelta {
  return {
    n: node,
    w: written ? result.writes : undefined,
    o: result.output,
    a: result.attachments,
    r: result.route,
  };
}

/** The step's deltas, in the order its nodes were collected (a step of one node's, made now). */
export function deltasOf(work: StepWork): NodeDelta[] {
  if (work.deltas !== null) return work.deltas;
  return work.node === null ? [] : [deltaOf(work.node.id, work.result!, work.pairs !== null)];
}

function unknownChannel(node: string, name: string): RunError {
  return {
    code: 'UNKNOWN_CHANNEL',
    message: `node ${node} wrote undeclared channel "${name}"`,
    node_id: node,
  };
}

function routeUnknown(node: string, unknown: string[]): RunError {
  return {
    code: 'ROUTE_UNKNOWN',
    message: `node ${node} chose route(s) no connector carries: ${unknown.join(', ')}`,
    node_id: node,
  };
}

/** The pairs whose value is defined: the row leaves undefined writes out, as JSON would. */
export function definedPairs(pairs: readonly Json[]): Json[] {
  const out: Json[] = [];
  for (let i = 0; i < pairs.length; i += 2)
    if (pairs[i + 1] !== undefined) out.push(pairs[i]!, pairs[i + 1]!);
  return out;
}
