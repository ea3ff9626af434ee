/**
 * A whole-world snapshot as stored and as held in memory. Its entities are stored as the text a
 * `get_world` answer is made of — the members of the answer's `entities` object, joined by commas
 * (`"id":{"kind":…,"environment_label":…,"state":…}`) — with the UTF-8 byte offset where each
 * member ends. So a snapshot read from the store answers as JSON without parsing or building one
 * entity object: the splice in `world-text.ts` works on the stored text, and finds a changed
 * entity through a hash table of the members' keys. Where the store hands a row's bytes over
 * undecoded (`Dialect.textBytesUndecoded`: SQLite) the table is stored with the snapshot (format 3:
 * building it cost a cold read a few tenths of a millisecond, and 160 KB of fresh arrays, for
 * 10 000 entities); where every value is decoded off the wire (PostgreSQL's driver, a bytea as
 * hex) carrying its 64 KB cost more than building it, and it is built on first use (format 2). The
 * whole world as objects is parsed only when something asks for it (a turn, the object answer, a
 * diff).
 *
 * Columns: `body` holds `{"format":3,"entities":n,"environments":[[label,content]…]}`,
 * `entities_text` the members (text: PostgreSQL sends a bytea as hex, which costs more to decode
 * than UTF-8), `entities_index` 32-bit little-endian integers: the n member ends, then the key
 * table's slots. Format 2 has `{"format":2,"environments":…}` and the member ends alone. Rows of
 * the first format (one JSON document of entity arrays, no index) are still read.
 */
import type { EntityState, WorkingWorld } from './world-patch.ts';

/** An entity's member of an answer's `entities` object (key order as get_world's objects have it). */
export function entityMember(id: string, e: EntityState): string {
  // The bytes of JSON.stringify of the view object, without building it (a cold read makes one per
  // entity changed since the snapshot).
  const head = `${JSON.stringify(id)}:{"kind":${JSON.stringify(e.kind)},"environment_label":${JSON.stringify(e.environment_label)},"state":${JSON.stringify(e.state)}`;
  return e.kind === 'agent' ? `${head},"memory":${JSON.stringify(e.memory ?? '')}}` : `${head}}`;
}

/** What a snapshot stores: the three columns of its row. */
export type StoredSnapshot = {
  body: string;
  entities_text: string | null;
  entities_index: Uint8Array | null;
};

/** A snapshot row as read: the text as stored, or its UTF-8 bytes (`Dialect.textBytes`). */
export type SnapshotRow = Omit<StoredSnapshot, 'entities_text'> & {
  entities_text: string | Uint8Array | null;
};

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;

/** A snapshot's world, kept as the text answers are spliced from; objects built on demand. */
export class Snapshot {
  readonly environments: ReadonlyMap<string, { content: string }>;
  /** The entities' members, comma-separated, as UTF-8: entity i is text[start(i), ends[i]). */
  readonly text: Buffer;
  readonly ends: Int32Array;
  /** The key table: FNV-1a of a member's key bytes → its position + 1, or 0 (linear probing). */
  #slots: Int32Array | undefined;
  /** Where each member's key (its id as JSON text) ends: only integer-like ids need them. */
  #keyEnds: Int32Array | undefined;
  #list: EntityList | undefined;
  #world: WorkingWorld | undefined;

  private constructor(
    environments: Map<string, { content: string }>,
    text: Buffer,
    ends: Int32Array,
    slots?: Int32Array,
    world?: WorkingWorld,
  ) {
    for (const v of environments.values()) Object.freeze(v);
    this.environments = environments;
    this.text = text;
    this.ends = ends;
    this.#slots = slots;
    if (world) this.#world = freeze(world);
  }

  /**
   * A snapshot of `world` (shared from now on: its entity objects are frozen), and its row: with
   * the key table (format 3) when `withKeyTable`, else without (format 2).
   */
  static of(
    world: WorkingWorld,
    withKeyTable = false,
  ): { snapshot: Snapshot; stored: StoredSnapshot & { bytes: number } } {
    const members: string[] = [];
    const ends = new Int32Array(world.entities.size);
    let at = 0;
    let i = 0;
    for (const [id, e] of world.entities) {
      const member = entityMember(id, e);
      if (i > 0) at += 1; // the comma
      at += Buffer.byteLength(member);
      ends[i++] = at;
      members.push(member);
    }
    const joined = members.join(',');
    const environments = new Map(world.environments);
    const envs = [...environments].map(([k, v]) => [k, v.content]);
    const body = JSON.stringify(
      withKeyTable
        ? { format: 3, entities: ends.length, environments: envs }
        : { format: 2, environments: envs },
    );
    const text = Buffer.from(joined);
    const slots = withKeyTable ? keyTable(text, ends, keyEndsOf(text, ends)) : undefined;
    const index = toLittleEndian(slots ? concatInt32(ends, slots) : ends);
    return {
      snapshot: new Snapshot(environments, text, ends, slots, world),
      stored: {
        body,
        entities_text: joined,
        entities_index: index,
        bytes: Buffer.byteLength(body) + at + index.length,
      },
    };
  }

  /** The snapshot a stored row holds (either format; its text read as a string or as UTF-8 bytes). */
  static parse(row: SnapshotRow): Snapshot {
    if (row.entities_text === null && row.entities_index === null)
      return Snapshot.of(decodeFirstFormat(row.body)).snapshot;
    if (row.entities_text === null || row.entities_index === null)
      throw new Error('corrupt snapshot row: it has entities_text or entities_index, not both');
    const header = JSON.parse(row.body) as {
      format: 2 | 3;
      entities?: number;
      environments: Array<[string, string]>;
    };
    const environments = new Map<string, { content: string }>();
    for (const [label, content] of header.environments) environments.set(label, { content });
    const t = row.entities_text;
    const text = typeof t === 'string' ? Buffer.from(t) : Buffer.from(t.buffer, t.byteOffset, t.byteLength);
    const index = fromLittleEndian(row.entities_index);
    let ends = index;
    let slots: Int32Array | undefined;
    if (header.format === 3) {
      const n = header.entities!;
      if (!Number.isSafeInteger(n) || n < 0 || index.length !== n + tableSize(n))
        throw new Error('corrupt snapshot row: its index does not match its count of entities');
      ends = index.subarray(0, n);
      slots = index.subarray(n);
    } else if (header.format !== 2) {
      throw new Error(`snapshot row of an unknown format (${String(header.format)})`);
    }
    // Every member ends where a comma (or the text) does, after the one before.
    for (let i = 0; i < ends.length; i++) {
      const end = ends[i]!;
      const last = i === ends.length - 1;
      if (end <= (i === 0 ? 0 : ends[i - 1]! + 1) || (last ? end !== text.length : text[end] !== COMMA))
        throw new Error(`corrupt snapshot row: its index does not match its text at member ${i}`);
    }
    if (slots) checkKeyTable(text, ends, slots);
    return new Snapshot(environments, text, ends, slots);
  }

  get size(): number {
    return this.ends.length;
  }

  /** Where entity i's member starts in `text`. */
  start(i: number): number {
    return i === 0 ? 0 : this.ends[i - 1]! + 1;
  }

  /** Entity `id`'s position in the text, if the snapshot has it. */
  position(id: string): number | undefined {
    // A member whose text starts with the key's bytes has that key: a JSON string ends at its first
    // unescaped quote, and both were written by JSON.stringify.
    const slots = this.#keyTable();
    const mask = slots.length - 1;
    // An id of printable ASCII but quotes and backslashes is its key's bytes between the quotes:
    // hashed and compared from the string, with no buffer made for it.
    let h = Math.imul(FNV_BASIS ^ QUOTE, FNV_PRIME);
    for (let c = 0; c < id.length; c++) {
      const code = id.charCodeAt(c);
      if (code < 0x20 || code > 0x7e || code === QUOTE || code === BACKSLASH)
        return this.#positionOfBytes(Buffer.from(JSON.stringify(id)), slots);
      h = Math.imul(h ^ code, FNV_PRIME);
    }
    h = Math.imul(h ^ QUOTE, FNV_PRIME) >>> 0;
    const text = this.text;
    for (let s = h & mask; ; s = (s + 1) & mask) {
      const slot = slots[s]!;
      if (slot === 0) return undefined;
      const i = slot - 1;
      const from = this.start(i) + 1;
      if (from + id.length >= this.ends[i]! || text[from + id.length] !== QUOTE) continue;
      let c = 0;
      while (c < id.length && text[from + c] === id.charCodeAt(c)) c++;
      if (c === id.length) return i;
    }
  }

  #positionOfBytes(key: Buffer, slots: Int32Array): number | undefined {
    const mask = slots.length - 1;
    for (let s = fnv1a(key, 0, key.length) & mask; ; s = (s + 1) & mask) {
      const slot = slots[s]!;
      if (slot === 0) return undefined;
      const i = slot - 1;
      const from = this.start(i);
      if (
        from + key.length < this.ends[i]! &&
        this.text.compare(key, 0, key.length, from, from + key.length) === 0
      )
        return i;
    }
  }

  #keyTable(): Int32Array {
    this.#slots ??= keyTable(this.text, this.ends, this.#keyEndsOf());
    return this.#slots;
  }

  #keyEndsOf(): Int32Array {
    this.#keyEnds ??= keyEndsOf(this.text, this.ends);
    return this.#keyEnds;
  }

  /** One entity as of the snapshot, parsed from its text alone unless the world is built. */
  entity(id: string): EntityState | undefined {
    if (this.#world) return this.#world.entities.get(id);
    const i = this.position(id);
    if (i === undefined) return undefined;
    const key = PLAIN_KEY.test(id) ? id.length + 2 : Buffer.byteLength(JSON.stringify(id));
    return Object.freeze(JSON.parse(this.text.toString('utf8', this.start(i) + key + 1, this.ends[i])));
  }

  /** The whole world as objects (built once, then shared: never mutate it or its entities). */
  get world(): WorkingWorld {
    if (this.#world) return this.#world;
    const { ids, entities: list } = this.entityList;
    const entities = new Map<string, EntityState>();
    for (let i = 0; i < ids.length; i++) entities.set(ids[i]!, list[i]!);
    this.#world = { entities, environments: new Map(this.environments) };
    return this.#world;
  }

  /**
   * The entities as objects, in the snapshot's order (built once, then shared: never mutate them).
   * An object answer is made from these alone: building the world's Map too would cost a cold read
   * a fifth more, and the Map's tables, grown past 128 KB, only a full collection takes back.
   */
  get entityList(): EntityList {
    if (this.#list) return this.#list;
    if (this.#world) {
      this.#list = { ids: [...this.#world.entities.keys()], entities: [...this.#world.entities.values()] };
      return this.#list;
    }
    const ids = new Array<string>(this.size);
    const entities = new Array<EntityState>(this.size);
    let at = 0;
    // In runs of members: JSON.parse builds an object of a few dozen keys about twice as fast per
    // key as one of 10 000 (a dictionary).
    for (let first = 0; first < this.size; first += PARSE_RUN) {
      const last = Math.min(first + PARSE_RUN, this.size) - 1;
      const run = JSON.parse(`{${this.text.toString('utf8', this.start(first), this.ends[last])}}`) as Record<
        string,
        EntityState
      >;
      let inOrder = true;
      for (const id in run) {
        // An object lists integer-like keys first; the snapshot's order is the text's.
        if (INTEGER_LIKE.test(id)) inOrder = false;
        ids[at] = id;
        entities[at++] = Object.freeze(run[id]!);
      }
      if (inOrder) continue;
      const keyEnds = this.#keyEndsOf();
      for (let i = first; i <= last; i++) {
        const id = JSON.parse(this.text.toString('utf8', this.start(i), keyEnds[i])) as string;
        ids[i] = id;
        entities[i] = run[id]!;
      }
    }
    this.#list = { ids, entities };
    return this.#list;
  }
}

/** A snapshot's entities: `entities[i]` is entity `ids[i]`. */
export interface EntityList {
  readonly ids: readonly string[];
  readonly entities: readonly EntityState[];
}

const INTEGER_LIKE = /^(?:0|[1-9][0-9]*)$/;
const PARSE_RUN = 50;

/** Ids whose JSON text is the id between quotes, byte for byte. */
const PLAIN_KEY = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
const FNV_BASIS = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** The key table's slots for `n` entities: a power of two, at most three quarters full. */
function tableSize(n: number): number {
  let size = 1;
  while (size * 3 < n * 4) size *= 2;
  return size;
}

/** Where each member's key ends (after its closing quote). */
function keyEndsOf(text: Buffer, memberEnds: Int32Array): Int32Array {
  const n = memberEnds.length;
  const ends = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const from = i === 0 ? 0 : memberEnds[i - 1]! + 1;
    const end = memberEnds[i]!;
    // The key is a JSON string: it ends at the first quote after its opening one not escaped.
    let at = from + 1;
    while (at < end && text[at] !== QUOTE) at += text[at] === BACKSLASH ? 2 : 1;
    if (text[from] !== QUOTE || at >= end)
      throw new Error(`snapshot member ${i} does not start with its key`);
    ends[i] = at + 1;
  }
  return ends;
}

/** The key table of the members ending at `memberEnds`, whose keys end at `keyEnds`. */
function keyTable(text: Buffer, memberEnds: Int32Array, keyEnds: Int32Array): Int32Array {
  const n = memberEnds.length;
  const slots = new Int32Array(tableSize(n));
  const mask = slots.length - 1;
  for (let i = 0; i < n; i++) {
    let s = fnv1a(text, i === 0 ? 0 : memberEnds[i - 1]! + 1, keyEnds[i]!) & mask;
    while (slots[s] !== 0) s = (s + 1) & mask;
    slots[s] = i + 1;
  }
  return slots;
}

/**
 * A stored key table is checked as far as is cheap: every member starts with a quote (its key),
 * and the slots hold each position exactly once (where each key hashes is not checked: that is the
 * work the stored table saves).
 */
function checkKeyTable(text: Buffer, memberEnds: Int32Array, slots: Int32Array): void {
  const n = memberEnds.length;
  for (let i = 0; i < n; i++)
    if (text[i === 0 ? 0 : memberEnds[i - 1]! + 1] !== QUOTE)
      throw new Error(`corrupt snapshot row: member ${i} does not start with its key`);
  const seen = new Uint8Array(n);
  let filled = 0;
  for (let s = 0; s < slots.length; s++) {
    const slot = slots[s]!;
    if (slot === 0) continue;
    if (slot < 0 || slot > n || seen[slot - 1] !== 0)
      throw new Error('corrupt snapshot row: its key table does not list each entity once');
    seen[slot - 1] = 1;
    filled++;
  }
  if (filled !== n) throw new Error('corrupt snapshot row: its key table does not list each entity once');
}

function fnv1a(bytes: Uint8Array, from: number, to: number): number {
  let h = FNV_BASIS;
  for (let i = from; i < to; i++) h = Math.imul(h ^ bytes[i]!, FNV_PRIME);
  return h >>> 0;
}

function concatInt32(...parts: Int32Array[]): Int32Array {
  const out = new Int32Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function toLittleEndian(index: Int32Array): Buffer {
  const bytes = Buffer.from(index.buffer, index.byteOffset, index.byteLength);
  return LITTLE_ENDIAN ? bytes : Buffer.from(bytes).swap32();
}

function fromLittleEndian(bytes: Uint8Array): Int32Array {
  if (bytes.byteLength % 4 !== 0) throw new Error('snapshot index is not a whole number of integers');
  // A typed-array view needs 4-byte alignment; a driver's buffer may sit anywhere in its pool.
  const aligned = bytes.byteOffset % 4 === 0 && LITTLE_ENDIAN ? bytes : Buffer.from(bytes);
  if (!LITTLE_ENDIAN) Buffer.from(aligned.buffer, aligned.byteOffset, aligned.byteLength).swap32();
  return new Int32Array(aligned.buffer, aligned.byteOffset, aligned.byteLength / 4);
}

function freeze(world: WorkingWorld): WorkingWorld {
  for (const e of world.entities.values()) Object.freeze(e);
  for (const v of world.environments.values()) Object.freeze(v);
  return world;
}

type FirstFormatEntity = [
  id: string,
  kind: 'agent' | 'prop',
  environment_label: string,
  state: string,
  memory: string | null,
];

/** The first stored format: `{ entities: [[id, kind, environment_label, state, memory]…], environments }`. */
export function decodeFirstFormat(body: string): WorkingWorld {
  const doc = JSON.parse(body) as { entities: FirstFormatEntity[]; environments: Array<[string, string]> };
  const entities = new Map<string, EntityState>();
  for (const [id, kind, environment_label, state, memory] of doc.entities)
    entities.set(
      id,
      kind === 'agent'
        ? { kind, environment_label, state, memory: memory ?? '' }
        : { kind, environment_label, state },
    );
  const environments = new Map<string, { content: string }>();
  for (const [label, content] of doc.environments) environments.set(label, { content });
  return { entities, environments };
}
