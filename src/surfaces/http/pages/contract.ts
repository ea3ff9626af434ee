/**
 * A contract's page: the ExecutionContract state machine (seed 000: every status and legal move)
 * with the moves this contract took drawn emphasized and its current status highlighted, the
 * transitions as a table (who moved it, when) and a link back to its run.
 */
import { CONTRACT_STATUSES, TRANSITIONS } from '../../../engine/index.ts';
import { graphPicture, type PictureEdge, type PictureNode, type Svg } from '../../pictures/index.ts';
import type { KindContext } from '../catalog/kind.ts';
import { badge, h, picture } from '../html/render.ts';
import { registerView } from '../html/views.ts';
import { hrefs, kv, when } from './common.ts';

type Transition = { from: string | null; to: string; at: number; actor: string };

/** The state of a contract before its first transition (its creation, `null → PENDING`). */
const CREATED = 'created';

/**
 * The state machine of ExecutionContracts, the moves `taken` emphasized and `current` highlighted.
 * States the contract passed through are marked `ok`, a FAILED one `failed`.
 */
export function contractMachinePicture(taken: readonly Transition[], current: string, title: string): Svg {
  const took = new Set(taken.map((t) => `${t.from ?? CREATED}>${t.to}`));
  const visited = new Set(taken.flatMap((t) => [t.from ?? CREATED, t.to]));
  const nodes: PictureNode[] = [CREATED, ...CONTRACT_STATUSES].map((s) => ({
    id: s,
    kind:
      s === CREATED ? 'start' : TRANSITIONS[s as keyof typeof TRANSITIONS].length === 0 ? 'final' : 'state',
    ...(visited.has(s) ? { status: s === 'FAILED' ? 'failed' : 'ok' } : {}),
  }));
  const edges: PictureEdge[] = [{ from: CREATED, to: 'PENDING', taken: took.has(`${CREATED}>PENDING`) }];
  for (const from of CONTRACT_STATUSES)
    for (const to of TRANSITIONS[from]) edges.push({ from, to, taken: took.has(`${from}>${to}`) });
  const path = taken.map((t) => `${t.from ?? CREATED} → ${t.to}`).join(', ');
  return graphPicture({
    nodes,
    edges,
    title,
    highlight: [current],
    description: `The ExecutionContract state machine: ${edges.length} legal moves between ${CONTRACT_STATUSES.join(', ')}. This contract took ${taken.length} of them (${path || 'none'}) and is ${current}.`,
  });
}

async function contractView(ctx: KindContext, record: Record<string, unknown>) {
  const contract_id = String(record.contract_id);
  const status = String(record.status);
  const transitions = (Array.isArray(record.transitions) ? record.transitions : []) as Transition[];
  const run = await ctx.store.get<{ run_id: string }>(
    'SELECT r.run_id FROM engine_contracts c JOIN engine_runs r ON r.run_pk = c.run_pk WHERE c.contract_id = ?',
    [contract_id],
  );
  const svg = contractMachinePicture(transitions, status, `Contract ${contract_id}: state machine`);
  const body = h`<div class="chain">${badge(status)}${run ? h`<a href="${hrefs.run(run.run_id)}">run</a>` : ''}</div>
<div class="panel">${kv([
    ['action', String(record.action_type ?? '')],
    ['node', record.node_id ? String(record.node_id) : null],
    ['error', record.error_message ? String(record.error_message) : null],
  ])}</div>
<h2>State machine</h2>${picture(svg)}<p class="legend"><span class="key key-taken">transition taken</span> <span class="key key-ran">state reached</span> <span class="key key-current">current status</span> <span class="key">not reached</span></p>
<h2>Transitions</h2><div class="scroll"><table><tr><th>from</th><th>to</th><th>at</th><th>by</th></tr>${transitions.map(
    (t) =>
      h`<tr><td>${t.from ?? CREATED}</td><td>${badge(t.to)}</td><td>${when(t.at)}</td><td>${t.actor}</td></tr>`,
  )}</table></div>`;
  return {
    title: `Contract ${contract_id}`,
    body,
    crumbs: run
      ? [
          { href: '/runs', title: 'runs' },
          { href: hrefs.run(run.run_id), title: `run ${run.run_id}` },
        ]
      : [],
  };
}

registerView('contracts', contractView);
