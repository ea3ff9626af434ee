/**
 * What every node of an attempt's run reads: the attempt (from the run's `attempt` channel), the
 * scenario plan, and the world before the turn — loaded once per process per attempt and cached,
 * so a process taking over an attempt after a crash rebuilds it from the store.
 */
import type { JsonSchema } from '../../core/schema-registry.ts';
import {
  type FinishedCall,
  finishedGenerationsOfAttempt,
  getJsonSchema,
  getResponseSource,
  putJsonSchema,
  type StoredResponseSource,
  succeededCallsOfAttempt,
} from '../../sources/index.ts';
import type { Store } from '../../store/store.ts';
import { type LoadedScenario, loadScenario } from './assemble.ts';
import { getWorldRow, readWorldState, type WorldRow } from './state.ts';
import {
  applyWorldPatch,
  cloneWorld,
  type Transition,
  type WorkingWorld,
  type WorldPatch,
} from './world-patch.ts';

/** The `attempt` channel: written once as the run's input. */
export interface AttemptInput {
  attempt_id: string;
  world_slug: string;
  attempted_turn: number;
  simulation_time: string | null;
  scenario_hash: string;
}

/** One accepted patch in the `patches` channel. */
export interface StagedPatch {
  patch_seq: number;
  subject_entity_id: string;
  workflow_hash: string;
  workflow_node_id: string;
  source_invocation_id: string;
  patch: WorldPatch;
  transitions: Transition[];
}

export interface TurnContext {
  attempt: AttemptInput;
  plan: LoadedScenario;
  /** The world before the turn (turn N-1). */
  base: WorkingWorld;
  /**
   * The working world after the first `applied` staged patches (advanced lazily); `last`: the
   * invocation of the last one applied, which tells this process's patches from another's.
   */
  working: { applied: number; world: WorkingWorld; last: string | null };
  sources: Map<string, StoredResponseSource>;
  schemas: Map<string, { hash: string; schema: JsonSchema }>;
  /** The attempt's ambient calls that succeeded, as known under one claim of the run (`ambientCalls`). */
  ambient: PerClaim<AmbientCall>;
  /** The attempt's finished generations, as known under one claim of the run (`generations`). */
  generations: PerClaim<FinishedCall>;
}

/** Calls of an attempt read from the store once per claim of its run, by key. */
interface PerClaim<T> {
  claim: AbortSignal | null;
  calls: Promise<Map<string, T>> | null;
}

/** A succeeded ambient call: the invocation that made it and its result. */
export interface AmbientCall {
  source_invocation_id: string;
  result: unknown;
}

/** Which binding made an ambient call: its workflow, its id, and the subject it ran for (if any). */
export function ambientCallKey(
  workflow_hash: string,
  ambient_source_id: string,
  subject: string | null,
): string {
  return `${workflow_hash}\u0000${ambient_source_id}\u0000${subject ?? ''}`;
}

/** Which generation a call was: its workflow node, subject, generation attempt and tool-loop round. */
export function generationKey(
  workflow_hash: string,
  node_id: string,
  subject: string,
  generation_attempt: number,
  round: number,
): string {
  return `${workflow_hash}\u0000${node_id}\u0000${subject}\u0000${generation_attempt}\u0000${round}`;
}

/** Scenario plans kept per runtime (content-addressed, so never stale). */
const PLANS = 16;

export class TurnContexts {
  readonly #store: Store;
  readonly #cache = new Map<string, Promise<TurnContext>>();
  readonly #plans = new Map<string, Promise<LoadedScenario>>();
  readonly #committed = new Map<string, readonly StagedPatch[]>();

  constructor(store: Store) {
    this.#store = store;
  }

  /**
   * The attempt's context; `world` (its world row, when the caller has just read it) saves a read.
   * `fresh`: the attempt was created just now, so it has made no call yet.
   */
  get(attempt: AttemptInput, world?: WorldRow, fresh = false): Promise<TurnContext> {
    let p = this.#cache.get(attempt.attempt_id);
    if (!p) {
      p = this.#load(attempt, world, fresh);
      p.catch(() => this.forget(attempt.attempt_id));
      this.#cache.set(attempt.attempt_id, p);
    }
    return p;
  }

  /**
   * Notes the patches the attempt's turn committed with, once this process's `commit` node saw it
   * committed, so the run's end need not read the run back for them.
   */
  committed(attempt_id: string, patches: readonly StagedPatch[]): void {
    this.#committed.set(attempt_id, patches);
  }

  /** The patches this process saw the attempt commit with (`committed`), if it did. */
  committedPatches(attempt_id: string): readonly StagedPatch[] | undefined {
    return this.#committed.get(attempt_id);
  }

  /** The scenario's turn plan (without entities), loaded once per runtime. */
  plan(scenario_hash: string): Promise<LoadedScenario> {
    let p = this.#plans.get(scenario_hash);
    if (!p) {
      p = loadScenario(this.#store, scenario_hash, { entities: false });
      p.catch(() => this.#plans.delete(scenario_hash));
      this.#plans.set(scenario_hash, p);
      for (const k of this.#plans.keys()) {
        if (this.#plans.size <= PLANS) break;
        this.#plans.delete(k);
      }
    }
    return p;
  }

  forget(attempt_id: string): void {
    this.#cache.delete(attempt_id);
    this.#committed.delete(attempt_id);
  }

  /**
   * The attempt's ambient calls that succeeded, by `ambientCallKey`, for a node running under
   * `claim` (its `ctx.signal`: one per claim of the run). Read from the store once per claim — a
   * process continuing the attempt finds the calls of one that died, or of one that held the run
   * while this process had lost its lease — and added to as this process makes calls, so no binding
   * is called twice in an attempt. A fresh attempt's first claim reads nothing.
   */
  ambientCalls(t: TurnContext, claim: AbortSignal): Promise<Map<string, AmbientCall>> {
    return perClaim(t.ambient, claim, () => readAmbientCalls(this.#store, t.attempt.attempt_id));
  }

  /**
   * The attempt's finished generations, by `generationKey`, as `ambientCalls` reads its calls: a
   * generation that finished before its process died, its step not committed, is reused by the
   * process continuing the attempt instead of being asked (and paid for) again.
   */
  generations(t: TurnContext, claim: AbortSignal): Promise<Map<string, FinishedCall>> {
    return perClaim(t.generations, claim, () => readGenerations(this.#store, t.attempt.attempt_id));
  }

  async #load(attempt: AttemptInput, row: WorldRow | undefined, fresh: boolean): Promise<TurnContext> {
    const plan = await this.plan(attempt.scenario_hash);
    const world = row ?? (await getWorldRow(this.#store, attempt.world_slug));
    const base = await readWorldState(this.#store, world, attempt.attempted_turn - 1);
    return {
      attempt,
      plan,
      base,
      working: { applied: 0, world: cloneWorld(base), last: null },
      sources: new Map(),
      schemas: new Map(),
      ambient: { claim: null, calls: fresh ? Promise.resolve(new Map()) : null },
      generations: { claim: null, calls: fresh ? Promise.resolve(new Map()) : null },
    };
  }

  async source(ctx: TurnContext, hash: string): Promise<StoredResponseSource> {
    let s = ctx.sources.get(hash);
    if (!s) {
      s = await getResponseSource(this.#store, hash);
      ctx.sources.set(hash, s);
    }
    return s;
  }

  async schema(ctx: TurnContext, hash: string): Promise<{ hash: string; schema: JsonSchema }> {
    let s = ctx.schemas.get(hash);
    if (!s) {
      s = await getJsonSchema(this.#store, hash);
      ctx.schemas.set(hash, s);
    }
    return s;
  }

  /** Stores (once) and returns a composed schema, so invocations can name it by hash. */
  async composed(
    ctx: TurnContext,
    key: string,
    build: () => JsonSchema,
  ): Promise<{ hash: string; schema: JsonSchema }> {
    let s = ctx.schemas.get(key);
    if (!s) {
      s = await putJsonSchema(this.#store, build());
      ctx.schemas.set(key, s);
    }
    return s;
  }
}

/** `cache`'s calls under `claim`, read (by `read`) once per claim; a new attempt's first claim reads nothing. */
function perClaim<T>(
  cache: PerClaim<T>,
  claim: AbortSignal,
  read: () => Promise<Map<string, T>>,
): Promise<Map<string, T>> {
  if (cache.calls && cache.claim === claim) return cache.calls;
  // Known without a read only to a new attempt's first claim: its calls, if any, are this claim's.
  const firstOfNew = cache.calls !== null && cache.claim === null;
  cache.claim = claim;
  if (firstOfNew) return cache.calls!;
  const calls = read();
  // A failed read is tried again by the next caller.
  calls.catch(() => {
    if (cache.calls === calls) cache.calls = null;
  });
  cache.calls = calls;
  return calls;
}

/** The attempt's finished generations by key; of several with one key, a succeeded one, else the last. */
async function readGenerations(store: Store, attempt_id: string): Promise<Map<string, FinishedCall>> {
  const calls = new Map<string, FinishedCall>();
  for (const g of await finishedGenerationsOfAttempt(store, attempt_id)) {
    const { workflow_hash: wf, workflow_node_id: node, workflow_subject_entity_id: subject } = g;
    if (wf === null || node === null || subject === null) continue;
    if (g.logical_generation_attempt === null || g.tool_loop_round === null) continue;
    const key = generationKey(wf, node, subject, g.logical_generation_attempt, g.tool_loop_round);
    if (calls.get(key)?.ok !== true) calls.set(key, g.call);
  }
  return calls;
}

async function readAmbientCalls(store: Store, attempt_id: string): Promise<Map<string, AmbientCall>> {
  const calls = new Map<string, AmbientCall>();
  for (const c of await succeededCallsOfAttempt(store, attempt_id, 'ambient_context')) {
    if (c.workflow_hash === null || c.ambient_source_id === null) continue;
    calls.set(ambientCallKey(c.workflow_hash, c.ambient_source_id, c.workflow_subject_entity_id), {
      source_invocation_id: c.source_invocation_id,
      result: c.output,
    });
  }
  return calls;
}

/**
 * The working world with every staged patch applied, in patch_seq order. Built again from the base
 * when `staged` is not what it was advanced with: fewer patches, or another last one where this
 * process applied a patch whose step never committed and another process staged its own (patches
 * are only appended, each by its own invocation, so the last one applied tells).
 */
export function workingWorld(ctx: TurnContext, staged: readonly StagedPatch[]): WorkingWorld {
  const w = ctx.working;
  if (w.applied > staged.length || (w.applied > 0 && staged[w.applied - 1]!.source_invocation_id !== w.last))
    ctx.working = { applied: 0, world: cloneWorld(ctx.base), last: null };
  const working = ctx.working;
  for (let i = working.applied; i < staged.length; i++) applyWorldPatch(working.world, staged[i]!.patch);
  working.applied = staged.length;
  if (staged.length > 0) working.last = staged[staged.length - 1]!.source_invocation_id;
  return working.world;
}
