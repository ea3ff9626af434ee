/**
 * What every node of an attempt's run reads: the attempt (from the run's `attempt` channel), the
 * scenario plan, and the world before the turn — loaded once per process per attempt and cached,
 * so a process taking over an attempt after a crash rebuilds it from the store.
 */
import type { JsonSchema } from '../../core/schema-registry.ts';
import {
  getJsonSchema,
  getResponseSource,
  putJsonSchema,
  type StoredResponseSource,
} from '../../sources/index.ts';
import type { Store } from '../../store/store.ts';
import { type LoadedScenario, loadScenario } from './assemble.ts';
import { getWorldRow, readWorldState } from './state.ts';
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
  /** The working world after the first `applied` staged patches (advanced lazily). */
  working: { applied: number; world: WorkingWorld };
  sources: Map<string, StoredResponseSource>;
  schemas: Map<string, { hash: string; schema: JsonSchema }>;
}

export class TurnContexts {
  readonly #store: Store;
  readonly #cache = new Map<string, Promise<TurnContext>>();

  constructor(store: Store) {
    this.#store = store;
  }

  get(attempt: AttemptInput): Promise<TurnContext> {
    let p = this.#cache.get(attempt.attempt_id);
    if (!p) {
      p = this.#load(attempt);
      p.catch(() => this.#cache.delete(attempt.attempt_id));
      this.#cache.set(attempt.attempt_id, p);
    }
    return p;
  }

  forget(attempt_id: string): void {
    this.#cache.delete(attempt_id);
  }

  async #load(attempt: AttemptInput): Promise<TurnContext> {
    const plan = await loadScenario(this.#store, attempt.scenario_hash, { entities: false });
    const world = await getWorldRow(this.#store, attempt.world_slug);
    const base = await readWorldState(this.#store, world, attempt.attempted_turn - 1);
    return {
      attempt,
      plan,
      base,
      working: { applied: 0, world: cloneWorld(base) },
      sources: new Map(),
      schemas: new Map(),
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

/** The working world with every staged patch applied, in patch_seq order. */
export function workingWorld(ctx: TurnContext, staged: readonly StagedPatch[]): WorkingWorld {
  if (staged.length < ctx.working.applied) ctx.working = { applied: 0, world: cloneWorld(ctx.base) };
  for (const s of staged.slice(ctx.working.applied)) applyWorldPatch(ctx.working.world, s.patch);
  ctx.working.applied = staged.length;
  return ctx.working.world;
}
