/**
 * WorldPatch (seed 004 D8): the kernel-owned, only applyable output of a subject's workflow —
 * a narration and effects of exactly three ops. `validateWorldPatch` checks a patch against the
 * live working world (unknown ids fail, memory on a prop fails, no id normalization);
 * `applyWorldPatch` applies it and returns per-patch transitions (D12: state_before is the state
 * just before this patch, not the turn's start).
 */

import { validateCompiled } from '../../core/compiled-validators.ts';
import { WORLD_PATCH_SCHEMA } from './world-patch-schema.ts';

export { WORLD_PATCH_SCHEMA, WORLD_PATCH_SCHEMA_HASH } from './world-patch-schema.ts';

export type WorldEffect =
  | { op: 'set_entity_state'; entity_id: string; state: string }
  | { op: 'append_entity_memory'; entity_id: string; content: string }
  | { op: 'set_environment_content'; environment_label: string; content: string };

export interface WorldPatch {
  narration: string;
  effects: WorldEffect[];
}

export interface EntityState {
  kind: 'agent' | 'prop';
  environment_label: string;
  state: string;
  /** Agents only. */
  memory?: string;
}

/** A world in memory: what a turn reads and patches apply to. */
export interface WorkingWorld {
  environments: Map<string, { content: string }>;
  entities: Map<string, EntityState>;
}

/** One effect's transition, recorded with its patch: `state_before` is the state just before this patch. */
export interface Transition {
  op: WorldEffect['op'];
  target: { entity_id: string } | { environment_label: string };
  state_before: string;
  state_after: string;
}

/**
 * A stored transition under the seed's names: rows (and runs staged) before the rename hold
 * `before` / `after`, read here as `state_before` / `state_after`.
 */
export function readTransition(raw: unknown): Transition {
  const t = raw as Partial<Transition> & { before?: string; after?: string };
  if (t.state_before !== undefined || t.before === undefined) return t as Transition;
  const { before, after, ...rest } = t;
  return {
    ...(rest as Omit<Transition, 'state_before' | 'state_after'>),
    state_before: before,
    state_after: after ?? '',
  };
}

export interface PatchProblem {
  path: string;
  message: string;
}

/** Shape (schema) and meaning (ids of the live working world); every problem, none applied. */
export function validateWorldPatch(world: WorkingWorld, patch: unknown): PatchProblem[] {
  const shape = validateCompiled(WORLD_PATCH_SCHEMA, patch);
  if (!shape.ok) return shape.errors.map((e) => ({ path: e.path, message: e.message }));
  const problems: PatchProblem[] = [];
  (patch as WorldPatch).effects.forEach((e, i) => {
    const path = `/effects/${i}`;
    if (e.op === 'set_environment_content') {
      if (!world.environments.has(e.environment_label))
        problems.push({ path, message: `unknown environment "${e.environment_label}"` });
      return;
    }
    const entity = world.entities.get(e.entity_id);
    if (!entity) problems.push({ path, message: `unknown entity "${e.entity_id}"` });
    else if (e.op === 'append_entity_memory' && entity.kind !== 'agent')
      problems.push({ path, message: `"${e.entity_id}" is a prop; props have no memory` });
  });
  return problems;
}

export function appendMemory(memory: string | undefined, content: string): string {
  return memory ? `${memory}\n${content}` : content;
}

/** Applies a validated patch in place; returns its transitions in effect order. */
export function applyWorldPatch(world: WorkingWorld, patch: WorldPatch): Transition[] {
  const out: Transition[] = [];
  for (const e of patch.effects) {
    if (e.op === 'set_environment_content') {
      const env = world.environments.get(e.environment_label)!;
      out.push({
        op: e.op,
        target: { environment_label: e.environment_label },
        state_before: env.content,
        state_after: e.content,
      });
      world.environments.set(e.environment_label, { content: e.content });
      continue;
    }
    const entity = world.entities.get(e.entity_id)!;
    if (e.op === 'set_entity_state') {
      out.push({
        op: e.op,
        target: { entity_id: e.entity_id },
        state_before: entity.state,
        state_after: e.state,
      });
      world.entities.set(e.entity_id, { ...entity, state: e.state });
    } else {
      const after = appendMemory(entity.memory, e.content);
      out.push({
        op: e.op,
        target: { entity_id: e.entity_id },
        state_before: entity.memory ?? '',
        state_after: after,
      });
      world.entities.set(e.entity_id, { ...entity, memory: after });
    }
  }
  return out;
}

/** A copy whose maps can be patched without touching the original. */
export function cloneWorld(world: WorkingWorld): WorkingWorld {
  return { environments: new Map(world.environments), entities: new Map(world.entities) };
}

/** The transitions `patch` would make on `world`, without changing it (copies only what it touches). */
export function previewTransitions(world: WorkingWorld, patch: WorldPatch): Transition[] {
  const overlay: WorkingWorld = { entities: new Map(), environments: new Map() };
  for (const e of patch.effects) {
    if (e.op === 'set_environment_content')
      overlay.environments.set(e.environment_label, world.environments.get(e.environment_label)!);
    else overlay.entities.set(e.entity_id, world.entities.get(e.entity_id)!);
  }
  return applyWorldPatch(overlay, patch);
}
