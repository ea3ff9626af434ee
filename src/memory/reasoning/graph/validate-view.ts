/**
 * branchmind_graph_validate: checks invariants of the effective view (v0: every live edge's
 * endpoints are live nodes), reporting at most `max_errors` problems, newest edges first.
 */
import { fitToBudget } from '../../../core/budget.ts';
import type { Store } from '../../../store/store.ts';
import { intArg, maxCharsArg } from './args.ts';
import { type GraphRefInput, resolveGraphRef, viewSources } from './ref.ts';
import type { EdgeKey } from './types.ts';
import { countEffective, effectiveEdges, nodesByIds } from './view.ts';

export interface GraphValidateInput extends GraphRefInput {
  max_errors?: unknown;
  max_chars?: unknown;
}

export interface GraphValidationError {
  code: 'DANGLING_EDGE';
  message: string;
  edge: EdgeKey;
  /** Which endpoints are missing or deleted. */
  missing: Array<'from' | 'to'>;
}

export interface GraphValidateOutput {
  branch: string;
  doc: string;
  ok: boolean;
  stats: { nodes: number; edges: number };
  errors: GraphValidationError[];
  truncated: boolean;
}

const PAGE = 500;

export async function graphValidate(store: Store, input: GraphValidateInput): Promise<GraphValidateOutput> {
  const maxErrors = intArg(input.max_errors, 'max_errors', 50, 1, 1000);
  const maxChars = maxCharsArg(input.max_chars);
  const ref = await resolveGraphRef(store, input);
  const sources = await viewSources(store, ref.scope, ref.branch);
  const stats = {
    nodes: await countEffective(store, 'node', ref.scope, sources),
    edges: await countEffective(store, 'edge', ref.scope, sources),
  };
  const errors: GraphValidationError[] = [];
  let moreErrors = false;
  let before: number | null = null;
  scan: for (;;) {
    const page = await effectiveEdges(
      store,
      ref.scope,
      sources,
      { sql: '', params: [] },
      { before, limit: PAGE },
    );
    if (page.length === 0) break;
    const live = await nodesByIds(
      store,
      ref.scope,
      sources,
      page.flatMap((e) => [e.from_id, e.to_id]),
    );
    const alive = (id: string) => {
      const r = live.get(id);
      return r !== undefined && Number(r.deleted) === 0;
    };
    for (const e of page) {
      const missing: Array<'from' | 'to'> = [];
      if (!alive(e.from_id)) missing.push('from');
      if (!alive(e.to_id)) missing.push('to');
      if (missing.length === 0) continue;
      if (errors.length === maxErrors) {
        moreErrors = true;
        break scan;
      }
      errors.push({
        code: 'DANGLING_EDGE',
        message: `edge ${e.from_id} -${e.rel}-> ${e.to_id}: ${missing.join(' and ')} node missing or deleted`,
        edge: { from: e.from_id, rel: e.rel, to: e.to_id },
        missing,
      });
    }
    if (page.length < PAGE) break;
    before = Number(page.at(-1)!.seq);
  }
  const fitted = fitToBudget({
    items: errors,
    maxChars,
    dropFrom: 'end',
    build: (kept, cut): GraphValidateOutput => ({
      branch: ref.branch,
      doc: ref.scope.doc,
      ok: errors.length === 0,
      stats,
      errors: kept,
      truncated: cut || moreErrors,
    }),
  });
  return fitted.value as GraphValidateOutput;
}
