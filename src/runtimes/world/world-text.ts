/**
 * get_world as JSON text, for answers that leave the process (HTTP): a snapshot's entities are
 * stored and kept as one text with each entity's offsets (`snapshot-format.ts`), and an answer
 * splices the text of the entities changed since the snapshot into it. Building and serializing the
 * 10 000 objects of a large world per answer costs ~10 ms and the garbage of it is most of
 * get_world's p99; a splice is a few hundred buffer views. The text is `JSON.stringify` of the
 * object answer, but for integer-like entity ids ("42"): an object lists those first, the text keeps
 * every entity in the world's order.
 */
import { entityMember } from './snapshot-format.ts';
import type { SnapshotBase } from './snapshots.ts';
import type { ChangedLayer } from './version-tails.ts';

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
  const t = base.snapshot;
  const replaced: Array<[number, Buffer]> = [];
  const added: Buffer[] = [];
  for (const v of changed.entities.values()) {
    v.json ??= Buffer.from(entityMember(v.entity_id, v.entity));
    const json = v.json;
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
    out.push(t.text.subarray(from, t.start(i)), json);
    from = t.ends[i]!;
  }
  out.push(t.text.subarray(from));
  for (const json of added) {
    if (out.length > 2 || t.text.length > 0) out.push(COMMA);
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
