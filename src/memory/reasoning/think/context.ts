/**
 * branchmind_think_context: a bounded, low-noise slice for resuming thought — the most recent
 * cards (graph nodes of the supported card types) with counts per type.
 */
import { fitToBudget } from '../../../core/budget.ts';
import type { Store } from '../../../store/store.ts';
import { intArg, maxCharsArg } from '../graph/args.ts';
import { viewSources } from '../graph/ref.ts';
import { toNode } from '../graph/rows.ts';
import type { GraphNode } from '../graph/types.ts';
import { countEffectiveBy, effectiveNodes, placeholders } from '../graph/view.ts';
import { CARD_TYPES } from './cards.ts';
import { resolveThinkRef, type ThinkRefInput } from './ref.ts';

export interface ThinkContextOutput {
  branch: string;
  graph_doc: string;
  stats: { cards: number; by_type: Record<string, number> };
  cards: GraphNode[];
  truncated: boolean;
}

export const cardTypesWhere = () => ({
  sql: `v.type IN (${placeholders(CARD_TYPES.length)})`,
  params: [...CARD_TYPES],
});

export async function thinkContext(
  store: Store,
  input: ThinkRefInput & { limit_cards?: unknown; max_chars?: unknown },
): Promise<ThinkContextOutput> {
  const limit = intArg(input.limit_cards, 'limit_cards', 30, 1, 200);
  const maxChars = maxCharsArg(input.max_chars);
  const ref = await resolveThinkRef(store, input, false);
  const scope = { workspace: input.workspace, doc: ref.graph_doc };
  const sources = await viewSources(store, scope, ref.branch);
  const counts = await countEffectiveBy(store, 'node', scope, sources, 'type', cardTypesWhere());
  const by_type: Record<string, number> = {};
  let total = 0;
  for (const t of CARD_TYPES) {
    const n = counts.get(t) ?? 0;
    if (n > 0) by_type[t] = n;
    total += n;
  }
  const rows = await effectiveNodes(store, scope, sources, cardTypesWhere(), { limit: limit + 1 });
  const cards = rows.slice(0, limit).map(toNode);
  const fitted = fitToBudget({
    items: cards,
    maxChars,
    dropFrom: 'end',
    build: (kept, cut): ThinkContextOutput => ({
      branch: ref.branch,
      graph_doc: ref.graph_doc,
      stats: { cards: total, by_type },
      cards: kept,
      truncated: cut,
    }),
  });
  return fitted.value as ThinkContextOutput;
}
