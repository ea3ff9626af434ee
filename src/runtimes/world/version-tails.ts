/**
 * The version rows after a snapshot, per lineage member, kept with the cached snapshot. A
 * committed turn never changes, so a warm read of a turn already covered runs no query for its
 * changes, and a read past it fetches only the turns not seen yet. Each row is kept materialized —
 * the entity as of its turn, memory included, frozen — because what precedes a member's rows
 * along the lineage is fixed (its ancestors up to its fork turn). The snapshot policy bounds it:
 * the changes after a snapshot never outweigh the snapshot.
 */
import type { Queryable } from '../../store/store.ts';
import { accountDerived, type SnapshotBase } from './snapshots.ts';
import { appendMemory, type EntityState } from './world-patch.ts';

/** An entity as of the turn of one of its versions, and (once an answer needed it) its text. */
export interface EntityVersion {
  readonly turn: number;
  readonly entity_id: string;
  readonly entity: EntityState;
  /** Its member of an answer's `entities` object, as UTF-8 (`world-text.ts`). */
  json?: Buffer;
  /** Its position in the snapshot's text, -1 when the snapshot lacks it (`world-text.ts`). */
  position?: number;
}

interface EnvironmentVersion {
  readonly turn: number;
  readonly label: string;
  readonly value: { content: string };
}

interface Tail {
  /** The rows of this member's turns (snapshot turn, upto] are all here, in turn order. */
  upto: number;
  entities: EntityVersion[];
  environments: EnvironmentVersion[];
  /** The newest row of each entity in `entities`: the state a newer row builds on. */
  latest: Map<string, EntityState>;
}

/** What the versions after a snapshot set, as of a turn (the newest version of each). */
export interface ChangedLayer {
  entities: Map<string, EntityVersion>;
  environments: Map<string, { content: string }>;
}

/**
 * The changes after `base` along `after` — (member, highest readable turn) pairs newer than the
 * snapshot, the world itself first — folded in turn order.
 */
export async function changesAfter(
  q: Queryable,
  base: SnapshotBase,
  after: ReadonlyArray<readonly [string, number]>,
): Promise<ChangedLayer> {
  const changed: ChangedLayer = { entities: new Map(), environments: new Map() };
  // Members cover disjoint turn ranges, ancestors' first.
  for (let m = after.length - 1; m >= 0; m--) {
    const [slug, limit] = after[m]!;
    const tail = await tailOf(q, base, slug, limit, changed);
    const n = countUpTo(tail.entities, limit);
    for (let i = 0; i < n; i++) {
      const v = tail.entities[i]!;
      changed.entities.set(v.entity_id, v);
    }
    const k = countUpTo(tail.environments, limit);
    for (let i = 0; i < k; i++) {
      const v = tail.environments[i]!;
      changed.environments.set(v.label, v.value);
    }
  }
  return changed;
}

/** The tail of `slug` after `base`, covering at least `limit` (fetching the turns it lacks). */
async function tailOf(
  q: Queryable,
  base: SnapshotBase,
  slug: string,
  limit: number,
  ancestors: ChangedLayer,
): Promise<Tail> {
  let tail = base.derived.tails.get(slug) as Tail | undefined;
  if (!tail) {
    tail = { upto: base.turn, entities: [], environments: [], latest: new Map() };
    base.derived.tails.set(slug, tail);
  }
  if (limit <= tail.upto) return tail;
  const from = tail.upto;
  const params = [slug, from, limit];
  const rows = await q.all<{
    turn: number;
    entity_id: string;
    kind: 'agent' | 'prop';
    environment_label: string;
    state: string;
    memory_append: string | null;
  }>(
    `SELECT turn, entity_id, kind, environment_label, state, memory_append FROM world_entity_versions
     WHERE world_slug = ? AND turn > ? AND turn <= ? ORDER BY turn`,
    params,
  );
  const envRows = await q.all<{ turn: number; environment_label: string; content: string }>(
    `SELECT turn, environment_label, content FROM world_environment_versions
     WHERE world_slug = ? AND turn > ? AND turn <= ? ORDER BY turn`,
    params,
  );
  // Another read may have extended the tail while these queries ran: keep only what is newer.
  const seen = tail.upto;
  if (limit <= seen) return tail;
  // A version row carries all of an entity but an agent's memory, which builds on the one before.
  const memoryBefore = (id: string): string | undefined =>
    (tail.latest.get(id) ?? ancestors.entities.get(id)?.entity ?? base.snapshot.entity(id))?.memory;
  let bytes = 0;
  for (const r of rows) {
    const turn = Number(r.turn);
    if (turn <= seen) continue;
    const e: EntityState =
      r.kind === 'agent'
        ? {
            kind: r.kind,
            environment_label: r.environment_label,
            state: r.state,
            memory:
              r.memory_append === null
                ? (memoryBefore(r.entity_id) ?? '')
                : appendMemory(memoryBefore(r.entity_id), r.memory_append),
          }
        : { kind: r.kind, environment_label: r.environment_label, state: r.state };
    Object.freeze(e);
    tail.entities.push({ turn, entity_id: r.entity_id, entity: e });
    tail.latest.set(r.entity_id, e);
    bytes += 96 + r.entity_id.length + r.state.length + (r.memory_append?.length ?? 0);
  }
  for (const r of envRows) {
    const turn = Number(r.turn);
    if (turn <= seen) continue;
    tail.environments.push({
      turn,
      label: r.environment_label,
      value: Object.freeze({ content: r.content }),
    });
    bytes += 64 + r.environment_label.length + r.content.length;
  }
  tail.upto = limit;
  accountDerived(base.derived, bytes);
  return tail;
}

/** How many rows (in turn order) have a turn ≤ `limit`. */
function countUpTo(rows: ReadonlyArray<{ turn: number }>, limit: number): number {
  let lo = 0;
  let hi = rows.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (rows[mid]!.turn <= limit) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
