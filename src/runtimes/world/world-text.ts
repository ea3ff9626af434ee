/**
 * get_world as JSON text, for answers that leave the process (HTTP): a snapshot's entities are
 * kept, with the snapshot, as one text with each entity's offsets, and an answer splices the text
 * of the entities changed since the snapshot into it. Building and serializing the 10 000 objects
 * of a large world per answer costs ~10 ms and the garbage of it is most of get_world's p99; a
 * splice is a few hundred string slices. The text equals `JSON.stringify` of the object answer.
 */
import { accountDerived, type SnapshotBase } from './snapshots.ts';
import type { ChangedLayer } from './version-tails.ts';
import type { EntityState } from './world-patch.ts';

/** A snapshot's entities as the UTF-8 text of an answer's `entities` object, without its braces. */
interface SnapshotText {
  body: Buffer;
  /** Entity i's `"id":{…}` is body[starts[i], ends[i]) (byte offsets). */
  starts: Int32Array;
  ends: Int32Array;
  position: Map<string, number>;
}

/** An entity's member of the `entities` object (key order as get_world's objects have it). */
function member(id: string, e: EntityState): string {
  const view =
    e.kind === 'agent'
      ? { kind: e.kind, environment_label: e.environment_label, state: e.state, memory: e.memory ?? '' }
      : { kind: e.kind, environment_label: e.environment_label, state: e.state };
  return `${JSON.stringify(id)}:${JSON.stringify(view)}`;
}

function snapshotText(base: SnapshotBase): SnapshotText {
  const known = base.derived.text as SnapshotText | undefined;
  if (known) return known;
  const n = base.world.entities.size;
  const parts: string[] = [];
  const starts = new Int32Array(n);
  const ends = new Int32Array(n);
  const position = new Map<string, number>();
  let at = 0;
  let i = 0;
  for (const [id, e] of base.world.entities) {
    const part = member(id, e);
    if (i > 0) at += 1; // the comma
    starts[i] = at;
    at += Buffer.byteLength(part);
    ends[i] = at;
    position.set(id, i);
    parts.push(part);
    i++;
  }
  const text: SnapshotText = { body: Buffer.from(parts.join(',')), starts, ends, position };
  base.derived.text = text;
  accountDerived(base.derived, text.body.length + n * 48);
  return text;
}

const OPEN = Buffer.from('{');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from('}');

/**
 * The UTF-8 text of the `entities` object (braces included) of the world `base` + `changed`, as
 * pieces: views into the snapshot's text and the changed entities' own text. Nothing is copied: a
 * fresh 0.8 MB buffer per answer would make the collector run a full mark-compact every few dozen
 * answers, which is most of a text answer's p99.
 */
export function entitiesText(base: SnapshotBase, changed: ChangedLayer): Buffer[] {
  const t = snapshotText(base);
  const replaced: Array<[number, Buffer]> = [];
  const added: Buffer[] = [];
  for (const v of changed.entities.values()) {
    v.json ??= Buffer.from(member(v.entity_id, v.entity));
    const json = v.json;
    const i = t.position.get(v.entity_id);
    if (i === undefined) added.push(json);
    else replaced.push([i, json]);
  }
  replaced.sort((a, b) => a[0] - b[0]);
  // An existing key keeps its place (as in the object answer); new keys follow, in change order.
  const out: Buffer[] = [OPEN];
  let from = 0;
  for (const [i, json] of replaced) {
    out.push(t.body.subarray(from, t.starts[i]!), json);
    from = t.ends[i]!;
  }
  out.push(t.body.subarray(from));
  for (const json of added) {
    if (out.length > 2 || t.body.length > 0) out.push(COMMA);
    out.push(json);
  }
  out.push(CLOSE);
  return out;
}

/**
 * `JSON.stringify(fields)` as UTF-8 pieces, with `raw` (JSON text in pieces) as the value of `key`,
 * placed after the field `before` (or last when `before` is not a field).
 */
export function withRawField(
  fields: Record<string, unknown>,
  key: string,
  raw: Buffer[],
  before: string,
): Buffer[] {
  const head: Record<string, unknown> = {};
  const tail: Record<string, unknown> = {};
  let past = false;
  for (const [k, v] of Object.entries(fields)) {
    (past ? tail : head)[k] = v;
    if (k === before) past = true;
  }
  const h = JSON.stringify(head);
  const rest = JSON.stringify(tail);
  const open = `${h.slice(0, -1)}${h === '{}' ? '' : ','}${JSON.stringify(key)}:`;
  const close = rest === '{}' ? '}' : `,${rest.slice(1)}`;
  return [Buffer.from(open), ...raw, Buffer.from(close)];
}
