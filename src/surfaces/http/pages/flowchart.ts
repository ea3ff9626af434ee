/**
 * Flowchart pages: the flowchart drawn as a graph (connectors solid/dotted/dashed as authored) with
 * its runs, and a flowchart run — the graph with each node's status and the running node highlighted
 * live, its node runs with their artifacts, and the waterfall of its LLM calls.
 */
import { getGraph, listFlowRuns, listNodeArtifacts } from '../../../runtimes/flow/index.ts';
import { listSourceInvocations } from '../../../sources/index.ts';
import { type ConnectorStyle, graphPicture, type Svg } from '../../pictures/index.ts';
import type { KindContext } from '../catalog/kind.ts';
import { badge, h, jsonBlock, picture } from '../html/render.ts';
import { registerView } from '../html/views.ts';
import { liveBox } from './attempt.ts';
import { enc, graphLegend, hrefs, invocationLabel, kv, when } from './common.ts';
import { cancelRunForm, runFlowchartForm } from './flowchart-actions.ts';
import { usageFacts } from './reads.ts';
import { pagedWaterfall } from './waterfall.ts';

type Snapshot = {
  nodes: Array<{ id: string; node_type: string; title: string }>;
  edges: Array<{
    source_node_id: string;
    target_node_id: string;
    edge_mode: string;
    route_key: string | null;
  }>;
};
type NodeRun = {
  node_run_id: string;
  flowchart_node_id: string;
  flowchart_node_type: string;
  execution_index: number;
  status: string;
  error: { code: string; message: string } | null;
  started_at: string;
  duration_ms: number | null;
};

const STATUS: Record<string, string> = { succeeded: 'completed', failed: 'failed', running: 'running' };

function flowPicture(graph: Snapshot, title: string, runs: NodeRun[] = [], live = false): Svg {
  const last = new Map<string, NodeRun>();
  for (const r of runs) last.set(r.flowchart_node_id, r);
  return graphPicture({
    title,
    nodes: graph.nodes.map((n) => {
      const run = last.get(n.id);
      return {
        id: n.id,
        label: n.title || n.id,
        kind: n.node_type,
        ...(run ? { status: STATUS[run.status] ?? run.status } : {}),
      };
    }),
    edges: graph.edges.map((e) => ({
      from: e.source_node_id,
      to: e.target_node_id,
      mode: e.edge_mode as ConnectorStyle,
      ...(e.route_key ? { label: e.route_key } : {}),
    })),
    highlight: live ? runs.filter((r) => r.status === 'running').map((r) => r.flowchart_node_id) : [],
  });
}

registerView('flowcharts', async (ctx: KindContext, record, _url, csrf) => {
  const id = String(record.flowchart_id);
  const runs = await listFlowRuns(ctx.store, id, { limit: 20 });
  return {
    title: `Flowchart ${String(record.name || id)}`,
    crumbs: [{ href: '/flowcharts', title: 'flowcharts' }],
    body: h`${picture(flowPicture(record.graph as Snapshot, 'Flowchart'))}
<p class="muted">Solid connectors trigger the next node, dotted ones pass context, dashed ones pass attachments.</p>
<h2>Run</h2>${runFlowchartForm(id, csrf)}
<h2>Runs</h2>${
      runs.items.length
        ? h`<ul>${runs.items.map(
            (r) =>
              h`<li><a href="/flowchart-runs/${enc(r.flowchart_run_id)}">${r.flowchart_run_id}</a> <span class="muted">${when(r.created_at)}</span></li>`,
          )}</ul>`
        : h`<p class="muted">No runs yet.</p>`
    }`,
  };
});

registerView('flowchart-runs', async (ctx: KindContext, record, url, csrf) => {
  const run = record as {
    flowchart_run_id: string;
    flowchart_id: string;
    status: string;
    node_runs: NodeRun[];
  };
  const live = run.status === 'running' || run.status === 'queued' || run.status === 'waiting';
  const graph = (await getGraph(ctx.store, run.flowchart_id)) as unknown as Snapshot;
  const artifacts = await listNodeArtifacts(
    ctx.store,
    { flowchart_run_id: run.flowchart_run_id },
    { limit: 200 },
  );
  const invocations = [
    ...(await listSourceInvocations(ctx.store, { run_id: run.flowchart_run_id, limit: 200 })).items,
  ].reverse();
  const rows = run.node_runs.map((n) => {
    const own = artifacts.items.filter((a) => a.node_run_id === n.node_run_id);
    const calls = invocations.filter(
      (i) => i.workflow_node_id === n.flowchart_node_id && typeof i.llm_call_id === 'string',
    );
    return h`<div class="panel" id="node-run-${n.node_run_id}"><h3>${n.flowchart_node_id} <span class="muted">${n.flowchart_node_type} · #${String(
      n.execution_index,
    )}</span> ${badge(n.status)}</h3>${n.error ? h`<p>${n.error.code}: ${n.error.message}</p>` : ''}${
      calls.length
        ? h`<p>LLM calls: ${calls.map((c) => h`<a class="why" href="${hrefs.llmCall(String(c.llm_call_id))}">${invocationLabel(c)}</a> `)}</p>`
        : ''
    }${
      own.length
        ? h`<details><summary>${String(own.length)} artifact${own.length > 1 ? 's' : ''}</summary>${own.map(
            (a) =>
              h`<h4>${a.artifact_type} <span class="muted">#${String(a.artifact_id)}</span></h4>${jsonBlock(a.payload)}`,
          )}</details>`
        : ''
    }</div>`;
  });
  return {
    title: `Flowchart run ${run.flowchart_run_id}`,
    crumbs: [{ href: `/flowcharts/${enc(run.flowchart_id)}`, title: 'flowchart' }],
    body: h`<div class="chain" data-live-region="status">${badge(run.status)} ${liveBox(run.flowchart_run_id, live)}<a href="${hrefs.run(
      run.flowchart_run_id,
    )}">engine run</a>${live ? cancelRunForm(run.flowchart_run_id, csrf) : ''}</div>
<div class="panel">${kv(usageFacts(record.usage))}</div>
<h2>Graph</h2><div data-live-region="graph">${picture(flowPicture(graph, 'Flowchart run', run.node_runs, live))}</div>${graphLegend()}
<h2>Node runs</h2><div data-live-region="nodes">${rows.length ? rows : h`<p class="muted">No node has run yet.</p>`}</div>
<h2>Waterfall</h2><div data-live-region="waterfall">${await pagedWaterfall(
      ctx.store,
      { run_id: run.flowchart_run_id },
      url,
      `Calls of flowchart run ${run.flowchart_run_id}`,
    )}</div>`,
  };
});
