/**
 * Reading and writing world state as versions: a turn writes a row only for each entity and
 * environment it changed (storage grows with change), and reading turn T of a world takes, per
 * entity, the newest version at or before T along the world's lineage (a fork reads its
 * parent's versions up to the fork turn, without copying them).
 */
import { NoemaError } from '../../core/errors.ts';
import type { Queryable, SqlValue } from '../../store/store.ts';
import { appendMemory, type EntityState, type WorkingWorld } from './world-patch.ts';

export type WorldRow = {
  world_slug: string;
  scenario_hash: string;
  parent_world_slug: string | null;
  fork_turn: number | null;
  head_turn: number;
  created_at: number;
};

export async function findWorld(q: Queryable, slug: string): Promise<WorldRow | null> {
  const row = await q.get<WorldRow>('SELECT * FROM worlds WHERE world_slug = ?', [slug]);
  if (!row) return null;
  return {
    ...row,
    fork_turn: row.fork_turn === null ? null : Number(row.fork_turn),
    head_turn: Number(row.head_turn),
    created_at: Number(row.created_at),
  };
}

export async function getWorldRow(q: Queryable, slug: string): Promise<WorldRow> {
  const w = await findWorld(q, slug);
  if (!w)
    throw new NoemaError('UNKNOWN_WORLD', `no world "${slug}"`, {
      details: { world_slug: slug },
      hint: 'create it with create_world { world_slug, scenario_ref }',
      status: 404,
    });
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

function lineageWhere(chain: Array<[string, number]>): { sql: string; params: SqlValue[] } {
  return {
    sql: chain.map(() => '(world_slug = ? AND turn <= ?)').join(' OR '),
    params: chain.flat(),
  };
}

/** The world as of `turn` (entities in scenario order as first written). */
export async function readWorldState(q: Queryable, world: WorldRow, turn: number): Promise<WorkingWorld> {
  const chain = await lineage(q, world, turn);
  const where = lineageWhere(chain);
  const entities = new Map<string, EntityState>();
  const rows = await q.all<{
    entity_id: string;
    kind: 'agent' | 'prop';
    environment_label: string;
    state: string;
    memory_append: string | null;
  }>(
    `SELECT entity_id, kind, environment_label, state, memory_append FROM world_entity_versions
     WHERE ${where.sql} ORDER BY turn`,
    where.params,
  );
  for (const r of rows) {
    const prev = entities.get(r.entity_id);
    const e: EntityState = { kind: r.kind, environment_label: r.environment_label, state: r.state };
    if (r.kind === 'agent') {
      const memory = prev?.memory;
      e.memory = r.memory_append === null ? (memory ?? '') : appendMemory(memory, r.memory_append);
    }
    entities.set(r.entity_id, e);
  }
  const environments = new Map<string, { content: string }>();
  const envRows = await q.all<{ environment_label: string; content: string }>(
    `SELECT environment_label, content FROM world_environment_versions WHERE ${where.sql} ORDER BY turn`,
    where.params,
  );
  for (const r of envRows) environments.set(r.environment_label, { content: r.content });
  return { entities, environments };
}

/** Writes the versions a turn changed: `changed` names what to write, `world` has its values. */
export async function writeVersions(
  tx: Queryable,
  slug: string,
  turn: number,
  world: WorkingWorld,
  changed: { entities: Map<string, string | null>; environments: Set<string> },
): Promise<void> {
  for (const [id, memoryAppend] of changed.entities) {
    const e = world.entities.get(id)!;
    await tx.run(
      `INSERT INTO world_entity_versions (world_slug, entity_id, turn, kind, environment_label, state, memory_append)
       VALUES (?, ?, ?, ?, ?, ?, ?)`,
      [slug, id, turn, e.kind, e.environment_label, e.state, memoryAppend],
    );
  }
  for (const label of changed.environments) {
    await tx.run(
      'INSERT INTO world_environment_versions (world_slug, environment_label, turn, content) VALUES (?, ?, ?, ?)',
      [slug, label, turn, world.environments.get(label)!.content],
    );
  }
}

export function simulationTime(
  start: string | undefined,
  minutesPerTurn: number | undefined,
  turn: number,
): string | null {
  if (!start || !minutesPerTurn) return null;
  return new Date(Date.parse(start) + turn * minutesPerTurn * 60_000).toISOString();
}

/** The public shape of a world at a turn (get_world). */
export function worldView(slug: string, turn: number, simulation_time: string | null, w: WorkingWorld) {
  return {
    world_slug: slug,
    turn,
    simulation_time,
    environments: Object.fromEntries([...w.environments].map(([k, v]) => [k, { content: v.content }])),
    entities: Object.fromEntries(
      [...w.entities].map(([k, e]) => [
        k,
        {
          kind: e.kind,
          environment_label: e.environment_label,
          state: e.state,
          ...(e.kind === 'agent' ? { memory: e.memory ?? '' } : {}),
        },
      ]),
    ),
  };
}
