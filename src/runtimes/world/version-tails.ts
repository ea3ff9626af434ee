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
  /** `json` escaped as inside a JSON string (`world-text.ts`). */
  escaped?: Buffer;
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
 * snapshot, the world itself first — folded in turn order. For an answer as text (`asText`) on a
 * cold read (the snapshot read from the store, its rows not cached) they are read as text instead
 * (`changesAsText`); the next read of the snapshot, warm, reads and keeps the rows.
 */
export async function changesAfter(
  q: Queryable,
  base: SnapshotBase,
  after: ReadonlyArray<readonly [string, number]>,
  asText = false,
): Promise<ChangedLayer> {
  if (asText && base.cold && !after.every(([slug, limit]) => limit <= covered(base, slug)))
    return changesAsText(q, base, after);
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

/** The highest turn of `slug` whose rows are kept with `base` (its turn when none are). */
function covered(base: SnapshotBase, slug: string): number {
  return (base.derived.tails.get(slug) as Tail | undefined)?.upto ?? base.turn;
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

/**
 * An entity version read as its member of the answer's text; the entity is parsed from it when
 * something asks (an answer as text never does).
 */
class TextVersion implements EntityVersion {
  readonly turn: number;
  readonly entity_id: string;
  json: Buffer;
  position?: number;
  escaped?: Buffer;
  #entity: EntityState | undefined;

  constructor(turn: number, entity_id: string, json: Buffer) {
    this.turn = turn;
    this.entity_id = entity_id;
    this.json = json;
  }

  get entity(): EntityState {
    this.#entity ??= Object.freeze(
      JSON.parse(this.json.toString('utf8', Buffer.byteLength(JSON.stringify(this.entity_id)) + 1)),
    ) as EntityState;
    return this.#entity;
  }
}

/**
 * `changesAfter` for an answer as text, on a cold read: the store writes each version's member of
 * the answer (`entityMember`'s text; an agent's memory, which builds on the one before, is added
 * here) and hands them over as one text per lineage member, with JSON arrays of each version's byte
 * length, id, whether it is an agent, memory appended and turn (one aggregate each: far cheaper in
 * SQLite than one index text joined with `||`), and the environment versions as a JSON list — one statement and
 * one row, where reading the versions as rows built a row object, an entity object and a member
 * string per version (most of a cold text read). Nothing read is kept with the snapshot: a later
 * read as objects reads the versions again.
 */
async function changesAsText(
  q: Queryable,
  base: SnapshotBase,
  after: ReadonlyArray<readonly [string, number]>,
): Promise<ChangedLayer> {
  const changed: ChangedLayer = { entities: new Map(), environments: new Map() };
  const d = q.dialect;
  const member = `${d.jsonString('entity_id')} || ':' || ${d.jsonObjectText(['kind', 'environment_label', 'state'])}`;
  // The rows come in the primary key's order (world, turn, entity); the aggregates take them as
  // they come, all in the same order, and the fold below orders them by turn if they were not.
  const sql = `SELECT (SELECT '[' || string_agg(${d.jsonString('environment_label')} || ',' || ${d.jsonString('content')}, ',' ORDER BY turn) || ']'
        FROM world_environment_versions WHERE world_slug = ? AND turn > ? AND turn <= ?) AS envs,
      ${d.textBytes("string_agg(m, '')")} AS members,
      ${d.jsonArrayAgg('octet_length(m)')} AS lengths,
      ${d.jsonArrayAgg('entity_id')} AS ids,
      ${d.jsonArrayAgg("CASE WHEN kind = 'agent' THEN 1 ELSE 0 END")} AS agents,
      ${d.jsonArrayAgg('memory_append')} AS appends,
      ${d.jsonArrayAgg('turn')} AS turns
    FROM (SELECT turn, entity_id, kind, memory_append, ${member} AS m FROM world_entity_versions
      WHERE world_slug = ? AND turn > ? AND turn <= ? ORDER BY turn) v`;
  // An agent's memory as of the versions folded so far (or the snapshot's).
  const memories = new Map<string, string>();
  for (let m = after.length - 1; m >= 0; m--) {
    const [slug, limit] = after[m]!;
    const row = await q.get<{
      envs: string | null;
      members: string | Uint8Array | null;
      lengths: string;
      ids: string;
      agents: string;
      appends: string;
      turns: string;
    }>(sql, [slug, base.turn, limit, slug, base.turn, limit]);
    if (row?.members != null) {
      const t = row.members;
      const text = typeof t === 'string' ? Buffer.from(t) : Buffer.from(t.buffer, t.byteOffset, t.byteLength);
      const lengths = JSON.parse(row.lengths) as number[];
      const ids = JSON.parse(row.ids) as string[];
      const agents = JSON.parse(row.agents) as number[];
      const appends = JSON.parse(row.appends) as Array<string | null>;
      const turns = JSON.parse(row.turns) as number[];
      const n = lengths.length;
      // Where each version's text starts (and, past the last, ends), in the order read.
      const starts = new Int32Array(n + 1);
      let ordered = true;
      for (let k = 0; k < n; k++) {
        starts[k + 1] = starts[k]! + lengths[k]!;
        if (k > 0 && turns[k]! < turns[k - 1]!) ordered = false;
      }
      if (starts[n] !== text.length) throw new Error('entity versions read as text do not match their index');
      const order = ordered ? undefined : Array.from({ length: n }, (_, k) => k);
      order?.sort((a, b) => turns[a]! - turns[b]!);
      for (let j = 0; j < n; j++) {
        const k = order ? order[j]! : j;
        const id = ids[k]!;
        let json = text.subarray(starts[k], starts[k + 1]);
        if (agents[k] === 1) {
          const before = memories.get(id) ?? base.snapshot.entity(id)?.memory;
          const append = appends[k] ?? null;
          const memory = append === null ? (before ?? '') : appendMemory(before, append);
          memories.set(id, memory);
          // The member's object without its closing brace, then the memory, then the brace.
          json = Buffer.concat([
            json.subarray(0, json.length - 1),
            Buffer.from(`,"memory":${JSON.stringify(memory)}}`),
          ]);
        }
        changed.entities.set(id, new TextVersion(turns[k]!, id, json));
      }
    }
    const envs = row?.envs ? (JSON.parse(row.envs) as string[]) : [];
    for (let k = 0; k < envs.length; k += 2)
      changed.environments.set(envs[k]!, Object.freeze({ content: envs[k + 1]! }));
  }
  return changed;
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
