/**
 * get_world as JSON text, for answers that leave the process (HTTP): a snapshot's entities are
 * stored and kept as one text with each entity's offsets (`snapshot-format.ts`), and an answer
 * splices the text of the entities changed since the snapshot into it. Building and serializing the
 * 10 000 objects of a large world per answer costs ~10 ms and the garbage of it is most of
 * get_world's p99; a splice is a few hundred buffer views. The text is `JSON.stringify` of the
 * object answer, but for integer-like entity ids ("42"): an object lists those first, the text keeps
 * every entity in the world's order.
 */
import { escaped, escapeRange } from '../../core/json-escape.ts';
import { entityMember, type Snapshot } from './snapshot-format.ts';
import { accountDerived, type EscapedText, type SnapshotBase } from './snapshots.ts';
import type { ChangedLayer, EntityVersion } from './version-tails.ts';

const OPEN = Buffer.from('{');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from('}');

/** A snapshot's members as one text, where member i lies in it, and a changed entity's member. */
interface TextForm {
  text: Buffer;
  start(i: number): number;
  end(i: number): number;
  /** A changed entity's member in this form (null: it cannot be had). */
  member(v: EntityVersion): Buffer | null;
}

/** A changed entity's member as UTF-8 JSON, made once and kept on the version. */
function memberJson(v: EntityVersion): Buffer {
  v.json ??= Buffer.from(entityMember(v.entity_id, v.entity));
  return v.json;
}

/**
 * The UTF-8 text of the `entities` object (braces included) of the world `base` + `changed`, as
 * pieces: views into the snapshot's text and the changed entities' own text. Nothing is copied: a
 * fresh 0.8 MB buffer per answer would make the collector run a full mark-compact every few dozen
 * answers, which is most of a text answer's p99.
 */
export function entitiesText(base: SnapshotBase, changed: ChangedLayer): Buffer[] {
  const t = base.snapshot;
  return entitiesIn(t, changed, {
    text: t.text,
    start: (i) => t.start(i),
    end: (i) => t.ends[i]!,
    member: memberJson,
  })!;
}

/**
 * `entitiesText` escaped as the inside of a JSON string (an MCP text content: `json-escape.ts`),
 * as views into the snapshot's escaped text — made once per cached snapshot, beside it — and the
 * changed entities' escaped members (kept on their versions). Null when the text holds a control
 * character (never so for text `JSON.stringify` wrote).
 */
export function escapedEntitiesText(base: SnapshotBase, changed: ChangedLayer): Buffer[] | null {
  const t = base.snapshot;
  const e = escapedSnapshot(base);
  if (e === null) return null;
  return entitiesIn(t, changed, {
    text: e.text,
    start: (i) => (i === 0 ? 0 : e.ends[i - 1]! + 1),
    end: (i) => e.ends[i]!,
    member: (v) => {
      v.escaped ??= escaped(memberJson(v)) ?? undefined;
      return v.escaped ?? null;
    },
  });
}

function entitiesIn(t: Snapshot, changed: ChangedLayer, form: TextForm): Buffer[] | null {
  const replaced: Array<[number, Buffer]> = [];
  const added: Buffer[] = [];
  for (const v of changed.entities.values()) {
    const json = form.member(v);
    if (json === null) return null;
    v.position ??= t.position(v.entity_id) ?? -1;
    const i = v.position;
    if (i < 0) added.push(json);
    else replaced.push([i, json]);
  }
  replaced.sort((a, b) => a[0] - b[0]);
  // An existing key keeps its place (as in the object answer); new keys follow, in change order.
  const out: Buffer[] = [OPEN];
  let from = 0;
  for (const [i, json] of replaced) {
    out.push(form.text.subarray(from, form.start(i)), json);
    from = form.end(i);
  }
  out.push(form.text.subarray(from));
  for (const json of added) {
    if (out.length > 2 || t.text.length > 0) out.push(COMMA);
    out.push(json);
  }
  out.push(CLOSE);
  return out;
}

/**
 * The snapshot's text escaped, kept with what reads derive from it (counted against the snapshot
 * cache's budget): one pass over the text, noting where each member ends in the escaped text (the
 * comma between two members needs no escape). Made on a warm read (the snapshot found in the cache),
 * as the version rows are kept: a cold read's answer escapes into the transport's pooled memory,
 * where a buffer of its own would cost fresh pages. Null when not made, or when the text holds a
 * control character.
 */
function escapedSnapshot(base: SnapshotBase): EscapedText | null {
  const derived = base.derived;
  if (derived.escaped !== undefined) return derived.escaped;
  if (base.cold || derived.snapshot_id === null) return null;
  const { text, ends } = base.snapshot;
  // Twice the text as the bound; the part never written is never touched (no page of it is given).
  const out = Buffer.allocUnsafeSlow(2 * text.length);
  const at = new Int32Array(ends.length);
  let o = 0;
  let from = 0;
  for (let i = 0; i < ends.length && o >= 0; i++) {
    o = escapeRange(text, from, ends[i]!, out, o);
    at[i] = o;
    from = ends[i]!;
  }
  if (o >= 0) o = escapeRange(text, from, text.length, out, o);
  derived.escaped = o < 0 ? null : { text: out.subarray(0, o), ends: at };
  if (derived.escaped) accountDerived(derived, o + at.byteLength);
  return derived.escaped;
}

/** `fields`' JSON text around the value of `key`, placed after the field `before` (or last). */
export function aroundField(
  fields: Record<string, unknown>,
  key: string,
  before: string,
): { open: Buffer; close: Buffer } {
  const head: Record<string, unknown> = {};
  const tail: Record<string, unknown> = {};
  let past = false;
  for (const [k, v] of Object.entries(fields)) {
    (past ? tail : head)[k] = v;
    if (k === before) past = true;
  }
  const h = JSON.stringify(head);
  const rest = JSON.stringify(tail);
  return {
    open: Buffer.from(`${h.slice(0, -1)}${h === '{}' ? '' : ','}${JSON.stringify(key)}:`),
    close: Buffer.from(rest === '{}' ? '}' : `,${rest.slice(1)}`),
  };
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
  const { open, close } = aroundField(fields, key, before);
  return [open, ...raw, close];
}

/**
 * The pieces `open`, `raw`, `close` escaped as inside a JSON string, `raw` given escaped (null:
 * none, or a control character in `open` or `close`).
 */
export function escapedAround(
  { open, close }: { open: Buffer; close: Buffer },
  raw: Buffer[] | null,
): Buffer[] | null {
  if (raw === null) return null;
  const o = escaped(open);
  const c = escaped(close);
  return o && c ? [o, ...raw, c] : null;
}
