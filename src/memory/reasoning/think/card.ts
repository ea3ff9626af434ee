/**
 * branchmind_think_card: commits a thinking card as a trace entry (chronology) and a graph node
 * with `supports`/`blocks` edges (structure) in one transaction. Idempotent: an identical card
 * writes nothing; a changed card with the same id updates the node and logs the new version.
 */
import { canonicalJson } from '../../../core/canonical-json.ts';
import { invalidInput } from '../../../core/errors.ts';
import { sha256Hex } from '../../../core/hash.ts';
import type { Store } from '../../../store/store.ts';
import { appendEntry } from '../docs/entries.ts';
import { nodeIdError } from '../graph/keys.ts';
import { viewSources } from '../graph/ref.ts';
import { sameState, toNode } from '../graph/rows.ts';
import type { EdgeKey, NodeContent } from '../graph/types.ts';
import { edgeMapKey, edgesByKeys, nodesByIds } from '../graph/view.ts';
import { type VersionWrite, writeVersions } from '../graph/write.ts';
import { lockWorkspaceWriters } from '../seq.ts';
import type { Card } from './cards.ts';
import { parseCard } from './parse-card.ts';
import { resolveThinkRef, type ThinkRefInput } from './ref.ts';

export const MAX_LINKS = 50;

export interface ThinkCardInput extends ThinkRefInput {
  card: unknown;
  supports?: unknown;
  blocks?: unknown;
}

export interface ThinkCardOutput {
  branch: string;
  trace_doc: string;
  graph_doc: string;
  card_id: string;
  card: Card;
  inserted: boolean;
  graph_applied: { nodes_upserted: number; edges_upserted: number };
  last_seq?: number;
}

function linksArg(v: unknown, field: string, self: string): string[] {
  if (v === undefined) return [];
  if (!Array.isArray(v) || v.length > MAX_LINKS) {
    throw invalidInput(`${field} must be an array of at most ${MAX_LINKS} card ids`, { field });
  }
  for (const id of v) {
    const err = nodeIdError(id, field);
    if (err) throw invalidInput(err, { field });
    if (id === self) throw invalidInput(`${field} must not contain the card's own id`, { field });
  }
  return [...new Set(v as string[])].sort();
}

function nodeOf(card: Card): NodeContent {
  const n: NodeContent = {
    id: card.id,
    type: card.type,
    status: card.status,
    tags: card.tags,
    deleted: false,
  };
  if (card.title !== undefined) n.title = card.title;
  if (card.text !== undefined) n.text = card.text;
  if (card.meta !== undefined) n.meta = card.meta;
  return n;
}

export async function thinkCard(store: Store, input: ThinkCardInput): Promise<ThinkCardOutput> {
  const card = parseCard(input.card);
  const supports = linksArg(input.supports, 'supports', card.id);
  const blocks = linksArg(input.blocks, 'blocks', card.id);
  const body = { card, supports, blocks };
  // The event id names this exact card version, so repeating it is a no-op on the trace doc.
  const eventId = `think:${card.id}:${sha256Hex(canonicalJson(body)).slice(0, 24)}`;

  return store.transaction(async (tx) => {
    await lockWorkspaceWriters(tx, input.workspace);
    const ref = await resolveThinkRef(tx, input, true);
    const scope = { workspace: input.workspace, doc: ref.graph_doc };
    const trace = await appendEntry(tx, {
      workspace: input.workspace,
      branch: ref.branch,
      doc: ref.trace_doc,
      kind: 'note',
      title: card.title ?? `${card.type} ${card.id}`,
      format: 'think_card',
      content: canonicalJson(body),
      meta: { card_id: card.id, card_type: card.type, graph_doc: ref.graph_doc },
      source_event_id: eventId,
    });

    const sources = await viewSources(tx, scope, ref.branch);
    const node = nodeOf(card);
    const current = (await nodesByIds(tx, scope, sources, [card.id])).get(card.id);
    const writes: VersionWrite[] = [];
    if (!current || !sameState(toNode(current), node)) writes.push({ kind: 'node', content: node });
    const keys: EdgeKey[] = [
      ...supports.map((to) => ({ from: card.id, rel: 'supports', to })),
      ...blocks.map((to) => ({ from: card.id, rel: 'blocks', to })),
    ];
    const edges = await edgesByKeys(tx, scope, sources, keys);
    for (const k of keys) {
      const e = edges.get(edgeMapKey(k));
      // A live edge is enough: a card link carries no meta, and must not erase meta set by graph_apply.
      if (!e || Number(e.deleted) === 1) writes.push({ kind: 'edge', content: { ...k, deleted: false } });
    }
    const out: ThinkCardOutput = {
      branch: ref.branch,
      trace_doc: ref.trace_doc,
      graph_doc: ref.graph_doc,
      card_id: card.id,
      card,
      inserted: trace.inserted,
      graph_applied: {
        nodes_upserted: writes.filter((w) => w.kind === 'node').length,
        edges_upserted: writes.filter((w) => w.kind === 'edge').length,
      },
    };
    if (writes.length > 0) out.last_seq = (await writeVersions(tx, scope, ref.branch, writes)).last_seq;
    else if (trace.inserted) out.last_seq = trace.entry.seq;
    return out;
  });
}
