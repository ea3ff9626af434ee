/**
 * The run page: the run's graph with the current node highlighted (moving live as events arrive),
 * the waterfall of its source invocations and LLM calls, and its ExecutionContracts.
 */
import { getGraph } from '../../../engine/index.ts';
import { formatMs } from '../../pictures/index.ts';
import type { KindContext } from '../catalog/kind.ts';
import { badge, h, picture } from '../html/render.ts';
import { registerView } from '../html/views.ts';
import { liveBox } from './attempt.ts';
import { graphLegend, hrefs, kv, toMs, when } from './common.ts';
import { specPicture } from './graphs.ts';
import { usageFacts } from './reads.ts';
import { pagedWaterfall } from './waterfall.ts';

const LIVE = new Set(['queued', 'running', 'waiting']);

type Run = {
  run_id: string;
  graph_hash: string;
  status: string;
  step: number;
  frontier: string[];
  outputs: Record<string, unknown>;
  state: Record<string, unknown>;
  contracts: Array<{ contract_id: string; node_id: string; action_type: string; status: string }>;
  error: { code: string; message: string; node_id?: string } | null;
  created_at: number;
  updated_at: number;
};

async function runView(ctx: KindContext, record: Record<string, unknown>, url: URL) {
  const run = record as unknown as Run;
  const live = LIVE.has(run.status);
  const status: Record<string, string> = {};
  for (const id of Object.keys(run.outputs ?? {})) status[id] = 'completed';
  if (run.error?.node_id) status[run.error.node_id] = 'failed';
  let graph = h`<p class="muted">The graph is not stored.</p>`;
  try {
    const { graph: spec } = await getGraph(ctx.store, run.graph_hash);
    graph = h`${picture(specPicture(spec, 'Run graph', { highlight: live ? run.frontier : [], status }))}${graphLegend()}`;
  } catch {
    // a run whose graph was never stored still has a page
  }
  const attempt = (run.state?.attempt as { attempt_id?: string } | undefined)?.attempt_id;
  // A world run's calls belong to its attempt; other runs' calls to the run alone.
  const waterfall = await pagedWaterfall(
    ctx.store,
    attempt ? { attempt_id: attempt } : { run_id: run.run_id },
    url,
    `Calls of run ${run.run_id}`,
  );
  const body = h`<div class="chain" data-live-region="status">${badge(run.status)} ${liveBox(run.run_id, live)}<span>step ${String(run.step)}</span>${
    attempt ? h`<a href="${hrefs.attempt(attempt)}">world attempt</a>` : ''
  }<a href="${hrefs.graph(run.graph_hash)}">graph</a></div>
<div class="panel" data-live-region="facts">${kv([
    ['created', when(run.created_at)],
    ['updated', when(run.updated_at)],
    [
      'duration',
      live ? null : formatMs(Math.max(0, (toMs(run.updated_at) ?? 0) - (toMs(run.created_at) ?? 0))),
    ],
    ...usageFacts(record.usage),
    ['frontier', run.frontier?.join(', ') || null],
    ['error', run.error ? `${run.error.code}: ${run.error.message}` : null],
  ])}</div>
<h2>Graph</h2><div data-live-region="graph">${graph}</div>
<h2>Waterfall</h2><div data-live-region="waterfall">${waterfall}</div>
<h2>Contracts</h2><div data-live-region="contracts">${
    run.contracts?.length
      ? h`<div class="scroll"><table><tr><th>contract</th><th>node</th><th>action</th><th>status</th></tr>${run.contracts.map(
          (c) =>
            h`<tr><td><a href="/contracts/${encodeURIComponent(c.contract_id)}">${c.contract_id.slice(0, 13)}…</a></td><td>${c.node_id}</td><td>${c.action_type}</td><td>${badge(c.status)}</td></tr>`,
        )}</table></div>`
      : h`<p class="muted">No contracts.</p>`
  }</div>`;
  return { title: `Run ${run.run_id}`, body, crumbs: [{ href: '/runs', title: 'runs' }] };
}

registerView('runs', runView);
