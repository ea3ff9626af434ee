/**
 * Reading and writing world state as versions: a turn writes a row only for each entity and
 * environment it changed (storage grows with change), and reading turn T of a world takes the
 * newest snapshot at or before T along the world's lineage (`snapshots.ts`) and applies the
 * versions after it (a fork reads its parent's snapshots and versions up to the fork turn,
 * without copying them).
 */
import { NoemaError } from '../../core/errors.ts';
import type { Queryable } from '../../store/store.ts';
import { insertBatched } from './batched-insert.ts';
import { type SnapshotBase, snapshotBase } from './snapshots.ts';
import { type ChangedLayer, changesAfter } from './version-tails.ts';
import type { EntityState, WorkingWorld } from './world-patch.ts';

export type WorldRow = {
  world_slug: string;
  scenario_hash: string;
  parent_world_slug: string | null;
  fork_turn: number | null;
  head_turn: number;
  created_at: number;
};

export async function findWorld(q: Queryable, slug: string): Promise<WorldRow | null> {
  const row = await q.get<WorldRow>(
    'SELECT world_slug, scenario_hash, parent_world_slug, fork_turn, head_turn, created_at FROM worlds WHERE world_slug = ?',
    [slug],
  );
  return row ? worldRowOf(row) : null;
}

/** A `worlds` row as read (numbers may arrive as strings from PostgreSQL's BIGINT). */
export function worldRowOf(row: WorldRow): WorldRow {
  return {
    world_slug: row.world_slug,
    scenario_hash: row.scenario_hash,
    parent_world_slug: row.parent_world_slug,
    fork_turn: row.fork_turn === null ? null : Number(row.fork_turn),
    head_turn: Number(row.head_turn),
    created_at: Number(row.created_at),
  };
}

export function unknownWorld(slug: string): NoemaError {
  return new NoemaError('UNKNOWN_WORLD', `no world "${slug}"`, {
    details: { world_slug: slug },
    hint: 'create it with create_world { world_slug, scenario_ref }',
    status: 404,
  });
}

export async function getWorldRow(q: Queryable, slug: string): Promise<WorldRow> {
  const w = await findWorld(q, slug);
  if (!w) throw unknownWorld(slug);
  return w;
}

/** (world, highest turn readable from it) pairs, the world itself first. */
export async function lineage(q: Queryable, world: WorldRow, turn: number): Promise<Array<[string, number]>> {
  const out: Array<[string, number]> = [[world.world_slug, turn]];
  let cur = world;
  let limit = turn;
  while (cur.parent_world_slug !== null && cur.fork_turn !== null) {
    limit = Math.min(limit, cur.fork_turn);
    cur = await getWorldRow(q, cur.parent_world_slug);
    out.push([cur.world_slug, limit]);
  }
  return out;
}

/**
 * The world as of `turn` in two layers: `base`, the newest snapshot along the lineage (shared,
 * never mutated), and `changed`, what the versions after it set (each entity and environment as of
 * `turn`, with the versions' cached answer text). Only committed turns may be read: the versions
 * read are kept with the snapshot (`version-tails.ts`), so reading through a transaction that has
 * written versions it may still roll back would cache them. `asText`: for an answer as text.
 */
export async function readWorldChanges(
  q: Queryable,
  world: WorldRow,
  turn: number,
  asText = false,
): Promise<{ base: SnapshotBase; changed: ChangedLayer }> {
  const chain = await lineage(q, world, turn);
  const base = await snapshotBase(q, chain);
  // Members of the lineage cover disjoint turn ranges; only what is newer than the base is read.
  const changed = await changesAfter(
    q,
    base,
    chain.filter(([, limit]) => limit > base.turn),
    asText,
  );
  return { base, changed };
}

/** `readWorldChanges` as two working worlds: the snapshot's, and what changed after it. */
export async function readWorldLayers(
  q: Queryable,
  world: WorldRow,
  turn: number,
): Promise<{ base: WorkingWorld; changed: WorkingWorld }> {
  const { base, changed } = await readWorldChanges(q, world, turn);
  return asLayers(base, changed);
}

/** A snapshot and the changes after it as two working worlds (the snapshot's is shared: never mutate it). */
export function asLayers(
  base: SnapshotBase,
  changed: ChangedLayer,
): { base: WorkingWorld; changed: WorkingWorld } {
  const entities = new Map<string, EntityState>();
  for (const [k, v] of changed.entities) entities.set(k, v.entity);
  return { base: base.snapshot.world, changed: { entities, environments: changed.environments } };
}

/** The world as of `turn` (entities in scenario order), as one working world of its own. */
export async function readWorldState(q: Queryable, world: WorldRow, turn: number): Promise<WorkingWorld> {
  const { base, changed } = await readWorldLayers(q, world, turn);
  const entities = new Map(base.entities);
  for (const [k, e] of changed.entities) entities.set(k, e);
  const environments = new Map(base.environments);
  for (const [k, v] of changed.environments) environments.set(k, v);
  return { entities, environments };
}

type EntityRow = [string, string, number, string, string, string, string | null];
type EnvironmentRow = [string, string, number, string];

/** The version rows a turn writes (`changed` names what, `world` has the values) and their bytes. */
export function versionRows(
  slug: string,
  turn: number,
  world: WorkingWorld,
  changed: { entities: Map<string, string | null>; environments: Set<string> },
): { entities: EntityRow[]; environments: EnvironmentRow[]; bytes: number } {
  const out = { entities: [] as EntityRow[], environments: [] as EnvironmentRow[], bytes: 0 };
  for (const [id, memoryAppend] of changed.entities) {
    const e = world.entities.get(id)!;
    const row: EntityRow = [slug, id, turn, e.kind, e.environment_label, e.state, memoryAppend];
    out.bytes += rowBytes(row);
    out.entities.push(row);
  }
  for (const label of changed.environments) {
    const row: EnvironmentRow = [slug, label, turn, world.environments.get(label)!.content];
    out.bytes += rowBytes(row);
    out.environments.push(row);
  }
  return out;
}

/** Writes a turn's version rows (from `versionRows`), many rows per statement. */
export async function writeVersions(tx: Queryable, rows: ReturnType<typeof versionRows>): Promise<void> {
  await insertBatched(
    tx,
    'INSERT INTO world_entity_versions (world_slug, entity_id, turn, kind, environment_label, state, memory_append)',
    '(?, ?, ?, ?, ?, ?, ?)',
    rows.entities,
  );
  await insertBatched(
    tx,
    'INSERT INTO world_environment_versions (world_slug, environment_label, turn, content)',
    '(?, ?, ?, ?)',
    rows.environments,
  );
}

/** Text bytes of a row, 8 per number, 0 per NULL (what the snapshot policy counts as change bytes). */
function rowBytes(row: ReadonlyArray<string | number | null>): number {
  let n = 0;
  for (const v of row) n += typeof v === 'string' ? Buffer.byteLength(v) : v === null ? 0 : 8;
  return n;
}

export function simulationTime(
  start: string | undefined,
  minutesPerTurn: number | undefined,
  turn: number,
): string | null {
  if (!start || !minutesPerTurn) return null;
  return new Date(Date.parse(start) + turn * minutesPerTurn * 60_000).toISOString();
}

/**
 * The public shape of a world at a turn (get_world): `w`, with `changed` (a later layer) over it.
 * An entity already in that shape (every
 * EntityState the runtime builds is: kind, environment_label, state, and memory for agents) is
 * used as it is, not copied — entity objects are never mutated, and cached snapshots freeze theirs.
 */
export function worldView(
  slug: string,
  turn: number,
  simulation_time: string | null,
  w: WorkingWorld,
  changed?: WorkingWorld,
) {
  const environments: Record<string, { content: string }> = {};
  const entities: Record<string, EntityView> = {};
  // Base entries first (in order), then the later layer over them: an existing key keeps its place.
  for (const [k, v] of w.environments) environments[k] = v;
  for (const [k, e] of w.entities)
    entities[k] = e.kind === 'prop' || typeof e.memory === 'string' ? e : entityView(e);
  if (changed) {
    for (const [k, v] of changed.environments) environments[k] = v;
    for (const [k, e] of changed.entities) entities[k] = viewShaped(e) ? e : entityView(e);
  }
  return { world_slug: slug, turn, simulation_time, environments, entities };
}

/**
 * `worldView` of a snapshot with the changes after it over it (`readWorldChanges`), made from the
 * snapshot's entity list: a cold read builds the entities' objects and the answer, not the world's
 * Map as well.
 */
export function snapshotView(
  slug: string,
  turn: number,
  simulation_time: string | null,
  base: SnapshotBase,
  changed: ChangedLayer,
) {
  const environments: Record<string, { content: string }> = {};
  const entities: Record<string, EntityView> = {};
  for (const [k, v] of base.snapshot.environments) environments[k] = v;
  for (const [k, v] of changed.environments) environments[k] = v;
  const { ids, entities: list } = base.snapshot.entityList;
  for (let i = 0; i < ids.length; i++) {
    const e = list[i]!;
    entities[ids[i]!] = e.kind === 'prop' || typeof e.memory === 'string' ? e : entityView(e);
  }
  for (const [k, v] of changed.entities) entities[k] = viewShaped(v.entity) ? v.entity : entityView(v.entity);
  return { world_slug: slug, turn, simulation_time, environments, entities };
}

/** An entity as get_world answers it. */
type EntityView = { kind: 'agent' | 'prop'; environment_label: string; state: string; memory?: string };

function viewShaped(e: EntityState): boolean {
  return e.kind === 'agent' ? typeof e.memory === 'string' : !('memory' in e);
}

function entityView(e: EntityState): EntityView {
  return {
    kind: e.kind,
    environment_label: e.environment_label,
    state: e.state,
    ...(e.kind === 'agent' ? { memory: e.memory ?? '' } : {}),
  };
}
