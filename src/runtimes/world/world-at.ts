/**
 * A world as of a committed turn, read for an answer (`get_world` as objects or as text): its row,
 * the turn's two layers (the snapshot and what changed after it, `state.ts`) and its turn row. For
 * a world with no parent — every world but a fork — one statement reads the row, the place of the
 * newest snapshot at or before the turn and the turn's row together, so a warm read (snapshot and
 * versions cached) makes one round trip where it made three (on PostgreSQL each is one). A
 * fork's snapshot and turn row may be its ancestors': read along its lineage.
 */
import { NoemaError } from '../../core/errors.ts';
import type { Queryable } from '../../store/store.ts';
import { type SnapshotBase, snapshotAt } from './snapshots.ts';
import { getWorldRow, readWorldChanges, unknownWorld, type WorldRow, worldRowOf } from './state.ts';
import { type ChangedLayer, changesAfter } from './version-tails.ts';

export interface TurnRow {
  attempt_id: string | null;
  simulation_time: string | null;
  patch_count: number;
  /** The lineage member whose turn it is (the world itself, or an ancestor up to a fork turn). */
  world_slug: string;
}

export interface WorldAt {
  world: WorldRow;
  turn: number;
  base: SnapshotBase;
  changed: ChangedLayer;
  turnRow: TurnRow;
}

/** UNKNOWN_TURN unless `turn` is a committed turn of `world`. */
export function assertTurn(world: WorldRow, turn: number): void {
  if (!Number.isInteger(turn) || turn < 0 || turn > world.head_turn) {
    throw new NoemaError(
      'UNKNOWN_TURN',
      `world "${world.world_slug}" has turns 0..${world.head_turn}, not ${turn}`,
      {
        details: { world_slug: world.world_slug, turn, head_turn: world.head_turn },
        status: 404,
      },
    );
  }
}

type HeadRow = WorldRow & {
  s_world_slug: string | null;
  s_turn: number | null;
  s_snapshot_id: string | null;
  s_bytes: number | null;
  t_attempt_id: string | null;
  t_simulation_time: string | null;
  t_patch_count: number | null;
};

// `?` is the turn asked for, or NULL for the head turn; it is bound twice.
const HEAD_SQL = `SELECT w.world_slug, w.scenario_hash, w.parent_world_slug, w.fork_turn, w.head_turn, w.created_at,
    s.world_slug AS s_world_slug, s.turn AS s_turn, s.snapshot_id AS s_snapshot_id, s.bytes AS s_bytes,
    t.attempt_id AS t_attempt_id, t.simulation_time AS t_simulation_time, t.patch_count AS t_patch_count
  FROM worlds w
  LEFT JOIN world_snapshots s ON s.world_slug = w.world_slug AND s.turn = (
    SELECT MAX(turn) FROM world_snapshots
    WHERE world_slug = w.world_slug AND turn <= COALESCE(?, w.head_turn))
  LEFT JOIN world_turns t ON t.world_slug = w.world_slug AND t.turn = COALESCE(?, w.head_turn)
  WHERE w.world_slug = ?`;

/**
 * World `world_slug` as of `turn` (default: its head); UNKNOWN_WORLD, UNKNOWN_TURN. `asText`: for
 * an answer as text (the changes read as text on a cold read, `version-tails.ts`).
 */
export async function readWorldAt(
  q: Queryable,
  input: { world_slug: string; turn?: number },
  asText = false,
): Promise<WorldAt> {
  // Only a turn that can exist is bound (a store would refuse -1.5 as an integer); others fail below.
  const asked = input.turn;
  const bound = asked !== undefined && Number.isSafeInteger(asked) && asked >= 0 ? asked : null;
  const row = await q.get<HeadRow>(HEAD_SQL, [bound, bound, input.world_slug]);
  if (!row) throw unknownWorld(input.world_slug);
  const world = worldRowOf(row);
  const turn = asked ?? world.head_turn;
  assertTurn(world, turn);
  if (world.parent_world_slug !== null) {
    const { base, changed } = await readWorldChanges(q, world, turn, asText);
    return { world, turn, base, changed, turnRow: await lineageTurnRow(q, world, turn) };
  }
  const base = await snapshotAt(
    q,
    row.s_snapshot_id === null
      ? undefined
      : {
          world_slug: row.s_world_slug!,
          turn: Number(row.s_turn),
          snapshot_id: row.s_snapshot_id,
          bytes: Number(row.s_bytes),
        },
    world.world_slug,
  );
  const changed = await changesAfter(q, base, turn > base.turn ? [[world.world_slug, turn]] : [], asText);
  const turnRow: TurnRow = {
    attempt_id: row.t_attempt_id,
    simulation_time: row.t_simulation_time,
    patch_count: Number(row.t_patch_count ?? 0),
    world_slug: world.world_slug,
  };
  return { world, turn, base, changed, turnRow };
}

/** The turn row (simulation time) along the lineage. */
export async function lineageTurnRow(q: Queryable, world: WorldRow, turn: number): Promise<TurnRow> {
  let cur: WorldRow = world;
  while (cur.fork_turn !== null && turn <= cur.fork_turn && cur.parent_world_slug)
    cur = await getWorldRow(q, cur.parent_world_slug);
  const row = await q.get<{ attempt_id: string | null; simulation_time: string | null; patch_count: number }>(
    'SELECT attempt_id, simulation_time, patch_count FROM world_turns WHERE world_slug = ? AND turn = ?',
    [cur.world_slug, turn],
  );
  return {
    attempt_id: row?.attempt_id ?? null,
    simulation_time: row?.simulation_time ?? null,
    patch_count: Number(row?.patch_count ?? 0),
    world_slug: cur.world_slug,
  };
}
