/**
 * branchmind_think_next: the best next card to work on, with the reason. Priority: the most
 * recent open question/hypothesis that no test or evidence card links to yet; then the most
 * recent open test without evidence; then the most recent open card of any type.
 */
import type { Store } from '../../../store/store.ts';
import { assertFits, maxCharsArg } from '../graph/args.ts';
import { viewSources } from '../graph/ref.ts';
import { toNode } from '../graph/rows.ts';
import type { GraphNode } from '../graph/types.ts';
import { effectiveEdges, effectiveNodes, nodesByIds, placeholders } from '../graph/view.ts';
import { cardTypesWhere } from './context.ts';
import { resolveThinkRef, type ThinkRefInput } from './ref.ts';

export interface ThinkNextOutput {
  branch: string;
  graph_doc: string;
  card: GraphNode | null;
  reason: string;
  /** A concrete suggestion for the next call. */
  next_action: string;
  truncated: boolean;
}

/** How many recent open cards are considered. */
export const SCAN = 200;

export async function thinkNext(
  store: Store,
  input: ThinkRefInput & { max_chars?: unknown },
): Promise<ThinkNextOutput> {
  const maxChars = maxCharsArg(input.max_chars);
  return assertFits(await pickNext(store, input), maxChars, 'the next card');
}

async function pickNext(store: Store, input: ThinkRefInput): Promise<ThinkNextOutput> {
  const ref = await resolveThinkRef(store, input, false);
  const scope = { workspace: input.workspace, doc: ref.graph_doc };
  const sources = await viewSources(store, scope, ref.branch);
  const where = cardTypesWhere();
  const open = (
    await effectiveNodes(
      store,
      scope,
      sources,
      { sql: `${where.sql} AND v.status = ?`, params: [...where.params, 'open'] },
      { limit: SCAN },
    )
  ).map(toNode);
  const base = { branch: ref.branch, graph_doc: ref.graph_doc, truncated: false };
  if (open.length === 0) {
    return {
      ...base,
      card: null,
      reason: 'no open cards',
      next_action: 'frame the problem: branchmind_think_card with a card of type "frame"',
    };
  }
  const ids = open.map((c) => c.id);
  const incoming = await effectiveEdges(
    store,
    scope,
    sources,
    { sql: `v.to_id IN (${placeholders(ids.length)})`, params: ids, keyed: true },
    { limit: 5_000 },
  );
  const fromNodes = await nodesByIds(
    store,
    scope,
    sources,
    incoming.map((e) => e.from_id),
  );
  const backedBy = new Map<string, Set<string>>();
  for (const e of incoming) {
    const src = fromNodes.get(e.from_id);
    if (!src || Number(src.deleted) === 1) continue;
    const set = backedBy.get(e.to_id) ?? new Set<string>();
    set.add(src.type);
    backedBy.set(e.to_id, set);
  }
  const has = (c: GraphNode, types: string[]) => types.some((t) => backedBy.get(c.id)?.has(t));

  const untested = open.find(
    (c) => (c.type === 'question' || c.type === 'hypothesis') && !has(c, ['test', 'evidence']),
  );
  if (untested) {
    return {
      ...base,
      card: untested,
      reason: `most recent open ${untested.type} with no test or evidence linked to it`,
      next_action: `add a ${untested.type === 'hypothesis' ? 'test' : 'evidence'} card with supports: ["${untested.id}"]`,
    };
  }
  const test = open.find((c) => c.type === 'test' && !has(c, ['evidence']));
  if (test) {
    return {
      ...base,
      card: test,
      reason: 'most recent open test with no evidence linked to it',
      next_action: `run it and add an evidence card with supports: ["${test.id}"]`,
    };
  }
  const latest = open[0]!;
  return {
    ...base,
    card: latest,
    reason: `most recent open card (${latest.type}); every open question/hypothesis already has a test or evidence`,
    next_action: `decide or update it: a decision card with supports: ["${latest.id}"], or set its status`,
  };
}
