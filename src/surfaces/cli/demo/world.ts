/**
 * The demo's park world: the `examples/park` bundle plus Alice (a second visitor who finds the
 * vending machine empty), assembled as the `park-demo` scenario with subjects Bob, Alice and the
 * ant, created once as the world `park-demo` and advanced a turn at a time on every run.
 */
import { readFileSync } from 'node:fs';
import { isNoemaError } from '../../../core/errors.ts';
import {
  applyBundle,
  assembleScenario,
  createWorld,
  createWorldRuntime,
  getWorld,
  putEntity,
  type RunTurnResult,
  type TurnProgress,
} from '../../../runtimes/world/index.ts';
import type { Store } from '../../../store/store.ts';
import { DEMO_FILES, type Env } from './services.ts';

export const DEMO_WORLD = 'park-demo';

/** Creates the demo world unless it exists; returns its head turn. */
export async function ensureDemoWorld(store: Store): Promise<{ created: boolean; head_turn: number }> {
  try {
    const w = await getWorld(store, { world_slug: DEMO_WORLD });
    return { created: false, head_turn: w.head_turn };
  } catch (err) {
    if (!isNoemaError(err) || err.code !== 'UNKNOWN_WORLD') throw err;
  }
  const bundle = await applyBundle(store, DEMO_FILES.parkBundle);
  const hashOf = (path: string) => bundle.documents.find((d) => d.path === path)?.hash;
  const alice = await putEntity(store, JSON.parse(readFileSync(DEMO_FILES.alice, 'utf8')));
  const visitor = { hash: hashOf('profiles/park-visitor.json')! };
  const scenario = await assembleScenario(store, {
    version: 1,
    label: DEMO_WORLD,
    environments: [{ hash: hashOf('environments/park.json')! }],
    entities: [
      ...bundle.documents.filter((d) => d.kind === 'entity').map((d) => ({ hash: d.hash })),
      { hash: alice.hash },
    ],
    // Bob goes first, so he gets the one candy bar and Alice finds the machine empty.
    subjects: [
      { entity_id: 'bob', cognition_profile_ref: visitor },
      { entity_id: 'alice', cognition_profile_ref: visitor },
      { entity_id: 'ant', cognition_profile_ref: { hash: hashOf('profiles/ant.json')! } },
    ],
    simulation: { start_time: '2026-04-28T14:00:00Z', minutes_per_turn: 30 },
  });
  await createWorld(store, { world_slug: DEMO_WORLD, scenario_ref: { hash: scenario.hash } });
  return { created: true, head_turn: 0 };
}

export interface WorldTurns {
  /** Runs the next turn; `onProgress` sees each subject, tool call and patch. */
  next(onProgress: (p: TurnProgress) => void): Promise<RunTurnResult>;
  close(): Promise<void>;
}

export function demoWorldTurns(store: Store, env: Env): WorldTurns {
  const runtime = createWorldRuntime(store, { env });
  return {
    next: (onProgress) => runtime.runTurn({ world_slug: DEMO_WORLD }, { onProgress }),
    close: () => runtime.close(),
  };
}

/**
 * Lines for a turn's progress events (what the status line shows). Tool calls do not name their
 * subject, so the describer remembers whose workflow is running.
 */
export function progressDescriber(): (p: TurnProgress) => string | null {
  let subject = '';
  return (p) => {
    if (typeof p.subject_entity_id === 'string') subject = p.subject_entity_id;
    if (p.kind === 'subject') return `${subject} is thinking`;
    if (p.kind === 'tool_call') return `${subject} calls ${String(p.tool_name)}`;
    if (p.kind === 'patch') return `${subject}: ${String(p.narration)}`;
    return null;
  };
}
