/**
 * Worlds: `create_world` (turn 0 from the scenario), `fork_world` (a new world sharing history
 * up to a turn, nothing copied), `get_world` at any committed turn, and `diff_turns`.
 */
import { invalidInput, NoemaError } from '../../core/errors.ts';
import type { Queryable, Store } from '../../store/store.ts';
import { loadScenario } from './assemble.ts';
import { HUMAN_LABEL } from './documents.ts';
import { snapshotMeta, writeSnapshot } from './snapshots.ts';
import { findWorld, getWorldRow, lineage, readWorldState, simulationTime, snapshotView } from './state.ts';
import { assertTurn, readWorldAt, type WorldAt } from './world-at.ts';
import type { WorkingWorld } from './world-patch.ts';
import { aroundField, entitiesText, escapedAround, escapedEntitiesText, withRawField } from './world-text.ts';

const SLUG = new RegExp(HUMAN_LABEL.pattern);

function checkSlug(slug: unknown, field = 'world_slug'): string {
  if (typeof slug !== 'string' || !SLUG.test(slug))
    throw invalidInput(`${field} must match ${HUMAN_LABEL.pattern}`, { [field]: slug });
  return slug;
}

function conflict(slug: string): NoemaError {
  return new NoemaError('WORLD_EXISTS', `world "${slug}" already exists`, {
    details: { world_slug: slug },
    hint: 'pick another world_slug, or fork_world to branch an existing one',
    status: 409,
  });
}

export async function createWorld(
  store: Store,
  input: { world_slug: string; scenario_ref: { hash: string } },
): Promise<{ world_slug: string; turn: 0; scenario_hash: string }> {
  const slug = checkSlug(input.world_slug);
  const scenario = await loadScenario(store, input.scenario_ref.hash);
  const world: WorkingWorld = { entities: new Map(), environments: new Map() };
  for (const e of scenario.entities) {
    world.entities.set(e.entity_id, {
      kind: e.kind,
      environment_label: e.environment_label,
      state: e.state,
      ...(e.kind === 'agent' ? { memory: e.memory ?? '' } : {}),
    });
  }
  for (const env of scenario.environments) world.environments.set(env.label, { content: env.content });
  const sim = scenario.doc.simulation;
  await store.transaction(async (tx) => {
    if (await findWorld(tx, slug)) throw conflict(slug);
    const now = Date.now();
    // Turn 0 is the scenario's state, stored whole as the world's first snapshot.
    const bytes = await writeSnapshot(tx, slug, 0, world);
    await tx.run(
      `INSERT INTO worlds (world_slug, scenario_hash, parent_world_slug, fork_turn, head_turn, created_at, change_bytes, snapshot_bytes)
       VALUES (?, ?, NULL, NULL, 0, ?, 0, ?)`,
      [slug, scenario.hash, now, bytes],
    );
    await tx.run(
      'INSERT INTO world_turns (world_slug, turn, attempt_id, simulation_time, patch_count, committed_at) VALUES (?, 0, NULL, ?, 0, ?)',
      [slug, simulationTime(sim?.start_time, sim?.minutes_per_turn, 0), now],
    );
  });
  return { world_slug: slug, turn: 0, scenario_hash: scenario.hash };
}

export async function forkWorld(
  store: Store,
  input: { world_slug: string; at_turn: number; new_world_slug: string },
): Promise<{ world_slug: string; forked_from: string; at_turn: number; turn: number }> {
  const newSlug = checkSlug(input.new_world_slug, 'new_world_slug');
  return store.transaction(async (tx) => {
    const parent = await getWorldRow(tx, input.world_slug);
    assertTurn(parent, input.at_turn);
    if (await findWorld(tx, newSlug)) throw conflict(newSlug);
    const now = Date.now();
    // The fork's reads start from the parent's newest snapshot at or before the fork turn; its
    // own first snapshot comes once its changes outweigh that one.
    const base = await snapshotMeta(tx, await lineage(tx, parent, input.at_turn));
    await tx.run(
      `INSERT INTO worlds (world_slug, scenario_hash, parent_world_slug, fork_turn, head_turn, created_at, change_bytes, snapshot_bytes)
       VALUES (?, ?, ?, ?, ?, ?, 0, ?)`,
      [newSlug, parent.scenario_hash, parent.world_slug, input.at_turn, input.at_turn, now, base?.bytes ?? 0],
    );
    return {
      world_slug: newSlug,
      forked_from: parent.world_slug,
      at_turn: input.at_turn,
      turn: input.at_turn,
    };
  });
}

export async function getWorld(store: Queryable, input: { world_slug: string; turn?: number }) {
  return objectAnswer(await readWorldAt(store, input));
}

/**
 * `getWorld` as UTF-8 JSON — the bytes of `JSON.stringify({ ...getWorld(input), ...extra })`, but
 * that entities with integer-like ids keep the world's order (`world-text.ts`) — for
 * answers that leave the process, as pieces to write in order: the entities are spliced into the
 * snapshot's text (`world-text.ts`), never built as objects, and the pieces are views into cached
 * text (never write into them).
 */
export async function getWorldJson(
  store: Queryable,
  input: { world_slug: string; turn?: number },
  extra: Record<string, unknown> = {},
): Promise<Buffer[]> {
  return textAnswer(await readWorldAt(store, input, true), extra);
}

/**
 * `getWorld` and its JSON (`getWorldJson`'s pieces) from one read, for an answer that carries both
 * (an MCP result's structured content and text): the JSON is spliced, not serialized from the
 * objects, and the objects are made only if `value` is called; `escaped` answers the JSON escaped as
 * inside a JSON string from the cached snapshot's escaped text (`world-text.ts`), or null where there
 * is none (a cold read: the caller escapes the JSON itself).
 */
export async function getWorldWithJson(
  store: Queryable,
  input: { world_slug: string; turn?: number },
): Promise<{
  value: () => ReturnType<typeof objectAnswer>;
  json: Buffer[];
  escaped: () => Buffer[] | null;
}> {
  const at = await readWorldAt(store, input, true);
  const around = aroundField(answerFields(at, {}), 'entities', 'environments');
  return {
    value: () => objectAnswer(at),
    json: [around.open, ...entitiesText(at.base, at.changed), around.close],
    escaped: () => escapedAround(around, escapedEntitiesText(at.base, at.changed)),
  };
}

function objectAnswer({ world, turn, base, changed, turnRow }: WorldAt) {
  return {
    ...snapshotView(world.world_slug, turn, turnRow.simulation_time, base, changed),
    scenario_hash: world.scenario_hash,
    head_turn: world.head_turn,
  };
}

/** The answer's fields but its entities, in the object answer's order. */
function answerFields(
  { world, turn, base, changed, turnRow: t }: WorldAt,
  extra: Record<string, unknown>,
): Record<string, unknown> {
  const environments: Record<string, { content: string }> = {};
  for (const [k, v] of base.snapshot.environments) environments[k] = v;
  for (const [k, v] of changed.environments) environments[k] = v;
  return {
    world_slug: world.world_slug,
    turn,
    simulation_time: t.simulation_time,
    environments,
    scenario_hash: world.scenario_hash,
    head_turn: world.head_turn,
    ...extra,
  };
}

function textAnswer(at: WorldAt, extra: Record<string, unknown> = {}): Buffer[] {
  return withRawField(answerFields(at, extra), 'entities', entitiesText(at.base, at.changed), 'environments');
}

/** What changed between two committed turns (whole-turn diff, beside the per-patch transitions). */
export async function diffTurns(
  store: Queryable,
  input: { world_slug: string; from_turn: number; to_turn: number },
) {
  const world = await getWorldRow(store, input.world_slug);
  assertTurn(world, input.from_turn);
  assertTurn(world, input.to_turn);
  const a = await readWorldState(store, world, input.from_turn);
  const b = await readWorldState(store, world, input.to_turn);
  const entities: Array<{ entity_id: string; field: string; before: string; after: string }> = [];
  for (const [id, eb] of b.entities) {
    const ea = a.entities.get(id);
    if (!ea) continue;
    if (ea.state !== eb.state)
      entities.push({ entity_id: id, field: 'state', before: ea.state, after: eb.state });
    if ((ea.memory ?? '') !== (eb.memory ?? ''))
      entities.push({ entity_id: id, field: 'memory', before: ea.memory ?? '', after: eb.memory ?? '' });
  }
  const environments: Array<{ environment_label: string; before: string; after: string }> = [];
  for (const [label, vb] of b.environments) {
    const va = a.environments.get(label);
    if (va && va.content !== vb.content)
      environments.push({ environment_label: label, before: va.content, after: vb.content });
  }
  return {
    world_slug: world.world_slug,
    from_turn: input.from_turn,
    to_turn: input.to_turn,
    entities,
    environments,
  };
}
