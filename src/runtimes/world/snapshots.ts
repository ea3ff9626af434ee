/**
 * Whole-world snapshots: the full state of a world at a turn, stored as one immutable blob, so
 * reading a past turn is one snapshot plus the changes after it instead of one row per entity.
 * A turn takes a snapshot only once the change bytes written since the last one exceed that
 * snapshot's size: stored bytes stay ≤ 2× the change bytes, and the changes a read replays stay
 * bounded by one snapshot's size. The stored form is the text answers are made of
 * (`snapshot-format.ts`). Snapshots read are cached in-process (bounded LRU) by their `snapshot_id`,
 * which is unique and never reused, so a cached snapshot is never stale; what reads derive from a
 * snapshot (the version rows after it, its world as objects) is cached with it.
 */
import { uuidv7 } from '../../core/ids.ts';
import type { Queryable } from '../../store/store.ts';
import { Snapshot, type SnapshotRow } from './snapshot-format.ts';
import type { WorkingWorld } from './world-patch.ts';

/** A snapshot as read: where it sits in the lineage and the world it holds (never mutated). */
export interface SnapshotBase {
  world_slug: string;
  /** -1 when the lineage has no snapshot at or before the turn (worlds created before snapshots). */
  turn: number;
  bytes: number;
  snapshot: Snapshot;
  /** Read from the store by this read, not found in the cache (or no snapshot at all). */
  cold: boolean;
  /**
   * What reads derive from this snapshot and keep beside it while it is cached (a fresh, unshared
   * object when it is not): filled by `version-tails.ts`.
   */
  derived: SnapshotDerived;
}

/** Read-side data derived from one snapshot; `bytes` counts it against the cache budget. */
export interface SnapshotDerived {
  /** The cached snapshot it belongs to (null: not cached, nothing to count). */
  readonly snapshot_id: string | null;
  bytes: number;
  /** Version rows after the snapshot, per lineage member (`version-tails.ts`). */
  tails: Map<string, unknown>;
  /** The snapshot's text escaped as inside a JSON string (`world-text.ts`): null if it cannot be. */
  escaped?: EscapedText | null;
}

/** A snapshot's members escaped as inside a JSON string, and where each member ends there. */
export interface EscapedText {
  text: Buffer;
  ends: Int32Array;
}

function derivedOf(snapshot_id: string | null = null): SnapshotDerived {
  return { snapshot_id, bytes: 0, tails: new Map() };
}

// ---------------------------------------------------------------- the in-process cache

/**
 * Budget of the cache, in snapshot body bytes; a snapshot whose world has been built as objects
 * takes a few times that in memory (a 10 000-entity snapshot is about 1 MB of text).
 */
const CACHE_BUDGET = 16 * 1024 * 1024;
type Entry = { snapshot: Snapshot; bytes: number; derived: SnapshotDerived };
const cache = new Map<string, Entry>();
let cached = 0;

// A snapshot's objects are shared by every read (get_world answers reuse them): `Snapshot` freezes
// them, so no reader can change what another reads. Reads that missed the cache together each
// parsed the snapshot: the first one cached wins, and the others take its entry (so what they derive
// is kept once, and its bytes are counted once).
function remember(id: string, snapshot: Snapshot, bytes: number): Entry {
  const known = cache.get(id);
  if (known) return known;
  const entry = { snapshot, bytes, derived: derivedOf(bytes > CACHE_BUDGET ? null : id) };
  if (bytes > CACHE_BUDGET) return entry;
  cache.set(id, entry);
  cached += bytes;
  evict();
  return entry;
}

function evict(): void {
  for (const [k, v] of cache) {
    if (cached <= CACHE_BUDGET) break;
    cache.delete(k);
    cached -= v.bytes + v.derived.bytes;
  }
}

/**
 * Counts `n` more bytes derived from a snapshot against the cache budget (evicting the least
 * recently used snapshots, with what was derived from them, when over it).
 */
export function accountDerived(derived: SnapshotDerived, n: number): void {
  derived.bytes += n;
  if (derived.snapshot_id === null || cache.get(derived.snapshot_id)?.derived !== derived) return;
  cached += n;
  evict();
}

function recall(id: string): Entry | undefined {
  const hit = cache.get(id);
  if (!hit) return undefined;
  cache.delete(id);
  cache.set(id, hit);
  return hit;
}

/** What the cache counts against its budget, in bytes (tests check it). */
export function snapshotCacheBytes(): number {
  return cached;
}

/** Empties the in-process cache (benchmarks measure cold reads with it). */
export function clearSnapshotCache(): void {
  cache.clear();
  cached = 0;
}

// ---------------------------------------------------------------- reading and writing

/** Where the newest snapshot along `chain` is, without its body. */
export function snapshotMeta(
  q: Queryable,
  chain: ReadonlyArray<[string, number]>,
): Promise<{ world_slug: string; turn: number; snapshot_id: string; bytes: number } | undefined> {
  return q.get(
    `SELECT world_slug, turn, snapshot_id, bytes FROM world_snapshots
     WHERE ${chain.map(() => '(world_slug = ? AND turn <= ?)').join(' OR ')} ORDER BY turn DESC LIMIT 1`,
    chain.flat(),
  );
}

/**
 * The newest snapshot along `chain` — (world, highest readable turn) pairs, the world itself first —
 * or an empty base at turn -1 when there is none.
 */
export async function snapshotBase(
  q: Queryable,
  chain: ReadonlyArray<[string, number]>,
): Promise<SnapshotBase> {
  return snapshotAt(q, await snapshotMeta(q, chain), chain[0]![0]);
}

/** The snapshot `row` (from `snapshotMeta` or a statement reading the same columns) places, or an empty base. */
export async function snapshotAt(
  q: Queryable,
  row: { world_slug: string; turn: number; snapshot_id: string; bytes: number } | undefined,
  slug: string,
): Promise<SnapshotBase> {
  if (!row)
    return {
      world_slug: slug,
      turn: -1,
      bytes: 0,
      snapshot: Snapshot.of({ entities: new Map(), environments: new Map() }).snapshot,
      cold: true,
      derived: derivedOf(),
    };
  const turn = Number(row.turn);
  const hit = recall(row.snapshot_id);
  const entry =
    hit ?? remember(row.snapshot_id, await readSnapshot(q, row.world_slug, turn), Number(row.bytes));
  return {
    world_slug: row.world_slug,
    turn,
    bytes: entry.bytes,
    snapshot: entry.snapshot,
    cold: hit === undefined,
    derived: entry.derived,
  };
}

async function readSnapshot(q: Queryable, slug: string, turn: number): Promise<Snapshot> {
  // The entities' text as UTF-8 bytes where the store hands them over undecoded: a cold read then
  // builds no ~1 MB string, which only a full collection would take back (a buffer goes with the
  // next young-generation one).
  const stored = await q.get<SnapshotRow>(
    `SELECT body, ${q.dialect.textBytes('entities_text')} AS entities_text, entities_index
     FROM world_snapshots WHERE world_slug = ? AND turn = ?`,
    [slug, turn],
  );
  return Snapshot.parse(stored!);
}

/** Stores the whole `world` as the snapshot of (slug, turn); returns its size in bytes. */
export async function writeSnapshot(
  tx: Queryable,
  slug: string,
  turn: number,
  world: WorkingWorld,
): Promise<number> {
  // The key table is stored where the store hands a row's bytes over as they are (`snapshot-format.ts`).
  const { snapshot, stored } = Snapshot.of(world, tx.dialect.textBytesUndecoded);
  const snapshot_id = uuidv7();
  await tx.run(
    `INSERT INTO world_snapshots (world_slug, turn, snapshot_id, body, entities_text, entities_index, bytes)
     VALUES (?, ?, ?, ?, ?, ?, ?)`,
    [slug, turn, snapshot_id, stored.body, stored.entities_text, stored.entities_index, stored.bytes],
  );
  remember(snapshot_id, snapshot, stored.bytes);
  return stored.bytes;
}
