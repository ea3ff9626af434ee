/**
 * The agent session page: the transcript, each reply linked to the LLM call that produced it (and from
 * there the same forensics chain as a world patch), the waterfall of the session's calls, its
 * ExecutionContracts and the session's run. Live while the session is running or waiting.
 */
import { getGraph } from '../../../engine/index.ts';
import { getAgent, SESSION_EVENT_NAMES } from '../../../runtimes/agent/index.ts';
import { listSourceInvocations } from '../../../sources/index.ts';
import type { KindContext } from '../catalog/kind.ts';
import { badge, h, type Markup, picture } from '../html/render.ts';
import { registerView } from '../html/views.ts';
import { hrefs, kv, noscriptRefresh, toMs, when } from './common.ts';
import { specPicture } from './graphs.ts';
import { memoryHrefs } from './memory-branches.ts';
import { usageFacts } from './reads.ts';
import { ecsForm, messageForm } from './session-actions.ts';
import { recentSessionEvents, sessionTurns, waitingForm } from './session-turns.ts';
import { pagedWaterfall } from './waterfall.ts';

type Message = { role: string; content: string; timestamp: string };
type Contract = { contract_id: string; node_id: string; action_type: string; status: string };

function liveSession(session_id: string, live: boolean, running: boolean): Markup {
  if (!live) return h``;
  // A waiting session is not refreshed without JavaScript: it would clear the form being filled.
  return h`<span class="muted" data-live-src="/sessions/${encodeURIComponent(session_id)}/events" data-live-events="${SESSION_EVENT_NAMES.join(' ')}"><span class="live-dot"></span>live</span>${
    running ? noscriptRefresh() : ''
  }`;
}

async function sessionView(ctx: KindContext, record: Record<string, unknown>, url: URL, csrf?: string) {
  const s = record as {
    session_id: string;
    agent_hash: string;
    user_id: string;
    status: string;
    run_id: string | null;
    turn_count: number;
    transcript: Message[];
    truncated: boolean;
    contracts: Contract[];
    waiting: { contract_id: string } | null;
  };
  const invocations = s.run_id
    ? [...(await listSourceInvocations(ctx.store, { run_id: s.run_id, limit: 200 })).items].reverse()
    : [];
  const calls = invocations.filter((i) => typeof i.llm_call_id === 'string');
  // A reply was produced by the last model call that started before it was stored.
  const producedBy = (m: Message) => {
    const at = toMs(m.timestamp) ?? 0;
    return calls.filter((c) => (toMs(c.started_at) ?? 0) <= at).at(-1);
  };
  const live = s.status === 'running' || s.status === 'waiting';
  const turns = await recentSessionEvents(ctx.store, s.session_id);
  const waiting = waitingForm(turns.events);
  // The agent graph of the session's run, the current node highlighted while it runs or waits.
  let graph: Markup = h``;
  if (s.run_id && ctx.engine) {
    const run = await ctx.engine.getRun(s.run_id, { max_chars: 4096 });
    const { graph: spec } = await getGraph(ctx.store, run.graph_hash);
    const waiting = (run.pending_executions ?? []).map((c) => c.node_id);
    graph = h`<h2>Agent graph</h2><div data-live-region="graph">${picture(
      specPicture(spec, 'Agent graph', { highlight: live ? [...run.frontier, ...waiting] : [] }),
    )}</div>`;
  }
  // The agent's reasoning-memory workspace (its definition's), where its notes tools write.
  const workspace = (await getAgent(ctx.store, s.agent_hash).catch(() => null))?.reasoning_memory?.workspace;
  const body = h`<div class="chain" data-live-region="status">${badge(s.status)} ${liveSession(s.session_id, live, s.status === 'running')}<a href="/agents/hash/${encodeURIComponent(
    s.agent_hash,
  )}">agent</a><a href="/user-profiles/${encodeURIComponent(s.user_id)}">user ${s.user_id}</a>${
    s.run_id ? h`<a href="${hrefs.run(s.run_id)}">engine run</a>` : ''
  }${workspace ? h`<a href="${memoryHrefs.workspace(workspace)}">reasoning memory ${workspace}</a>` : ''}${
    s.waiting ? h`<a href="/contracts/${encodeURIComponent(s.waiting.contract_id)}">waiting form</a>` : ''
  }</div>
<div class="panel">${kv([
    ['turns', s.turn_count],
    ['messages shown', `${s.transcript.length}${s.truncated ? ' (the most recent)' : ''}`],
    ...usageFacts(record.usage),
  ])}</div>
<h2>Turns</h2><div data-live-region="turns">${sessionTurns(turns.events, turns.cut, workspace)}${
    s.status === 'waiting' && waiting ? ecsForm(s.session_id, waiting, csrf) : ''
  }</div>
<pre class="streaming" data-live-text aria-live="polite" hidden></pre>
${messageForm(s.session_id, csrf)}
${graph}<h2>Transcript</h2><div data-live-region="transcript">${
    s.transcript.length
      ? s.transcript.map((m) => {
          const call = m.role === 'assistant' ? producedBy(m) : undefined;
          return h`<div class="msg role-${m.role.replace(/[^a-z]/g, '')}"><div class="role">${m.role} · ${when(m.timestamp)}${
            call ? h` · <a class="why" href="${hrefs.llmCall(String(call.llm_call_id))}">LLM call</a>` : ''
          }</div><pre tabindex="0">${m.content}</pre></div>`;
        })
      : h`<p class="muted">No messages yet.</p>`
  }</div>
<h2>Waterfall</h2><div data-live-region="waterfall">${
    s.run_id
      ? await pagedWaterfall(ctx.store, { run_id: s.run_id }, url, `Calls of session ${s.session_id}`)
      : h`<p class="muted">No source invocations yet.</p>`
  }</div>
<h2>Contracts</h2><div data-live-region="contracts">${
    s.contracts?.length
      ? h`<div class="scroll"><table><tr><th>contract</th><th>node</th><th>action</th><th>status</th></tr>${s.contracts.map(
          (c) =>
            h`<tr><td><a href="/contracts/${encodeURIComponent(c.contract_id)}">${c.contract_id.slice(0, 13)}…</a></td><td>${c.node_id}</td><td>${c.action_type}</td><td>${badge(c.status)}</td></tr>`,
        )}</table></div>`
      : h`<p class="muted">No contracts.</p>`
  }</div>`;
  return { title: `Session ${s.session_id}`, body, crumbs: [{ href: '/sessions', title: 'agent sessions' }] };
}

registerView('sessions', sessionView);
