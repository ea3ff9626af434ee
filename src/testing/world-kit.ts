/**
 * A park world for tests and benchmarks: the `examples/park` bundle applied to a store, a
 * scripted model and the toy services started on 127.0.0.1, and the environment pointing the
 * bundle's sources at them. Variants assemble other scenarios from the same stored documents.
 */
import { fileURLToPath } from 'node:url';
import {
  loadScript,
  type ModelScript,
  type ScriptedModelServer,
  startScriptedModel,
} from '../dev/scripted-model/index.ts';
import { startToyServices, type ToyServices } from '../dev/toys/index.ts';
import {
  type AppliedBundle,
  applyBundle,
  assembleScenario,
  createWorld,
  createWorldRuntime,
  type WorldRuntime,
} from '../runtimes/world/index.ts';
import type { Store } from '../store/store.ts';

export const PARK_BUNDLE = fileURLToPath(new URL('../../examples/park', import.meta.url));
export const PARK_SCRIPT = fileURLToPath(new URL('../../examples/park/model-script.json', import.meta.url));

export interface ParkKit {
  store: Store;
  bundle: AppliedBundle;
  model: ScriptedModelServer;
  toys: ToyServices;
  /** NOEMA_LLM_* and NOEMA_TOY_* for the bundle's sources. */
  env: Record<string, string>;
  runtime: WorldRuntime;
  /** The hash of a bundle document by its path, e.g. `profiles/ant.json`. */
  doc(path: string): string;
  /** Creates a world of the park scenario (or of `scenario_hash`). */
  world(slug: string, scenario_hash?: string): Promise<void>;
  /** Assembles a variant scenario: park's environment and entities plus `extra` entities, with these subjects. */
  variant(input: {
    subjects: Array<{ entity_id: string; profile: string }>;
    extraEntities?: string[];
  }): Promise<string>;
  close(): Promise<void>;
}

export async function startParkKit(
  store: Store,
  options: {
    script?: ModelScript;
    vendingStock?: number;
    leaseMs?: number;
    env?: Record<string, string>;
    /** Called by the toy services as each request arrives, before they answer (see `startToyServices`). */
    onToyRequest?: (request: { path: string; body: unknown }) => void | Promise<void>;
  } = {},
): Promise<ParkKit> {
  const model = await startScriptedModel({ script: options.script ?? loadScript(PARK_SCRIPT) });
  const toys = await startToyServices({
    vendingStock: options.vendingStock ?? 1,
    ...(options.onToyRequest ? { onRequest: options.onToyRequest } : {}),
  });
  const env = { ...toys.env, NOEMA_LLM_BASE_URL: model.url, NOEMA_LLM_MODEL: 'scripted', ...options.env };
  const bundle = await applyBundle(store, PARK_BUNDLE);
  const runtime = createWorldRuntime(store, {
    env,
    ...(options.leaseMs ? { leaseMs: options.leaseMs } : {}),
  });
  const doc = (path: string) => {
    const d = bundle.documents.find((x) => x.path === path);
    if (!d) throw new Error(`no bundle document ${path}`);
    return d.hash;
  };
  return {
    store,
    bundle,
    model,
    toys,
    env,
    runtime,
    doc,
    async world(slug, scenario_hash = bundle.scenario_hash) {
      await createWorld(store, { world_slug: slug, scenario_ref: { hash: scenario_hash } });
    },
    async variant({ subjects, extraEntities = [] }) {
      const entities = bundle.documents.filter((d) => d.kind === 'entity').map((d) => ({ hash: d.hash }));
      return (
        await assembleScenario(store, {
          version: 1,
          label: 'park-variant',
          environments: [{ hash: doc('environments/park.json') }],
          entities: [...entities, ...extraEntities.map((hash) => ({ hash }))],
          subjects: subjects.map((s) => ({
            entity_id: s.entity_id,
            cognition_profile_ref: { hash: s.profile },
          })),
          simulation: { start_time: '2026-04-28T14:00:00Z', minutes_per_turn: 30 },
        })
      ).hash;
    },
    async close() {
      await runtime.close();
      await model.close();
      await toys.close();
    },
  };
}
