/** The attempt page: status (live while running), the waterfall of its calls, and its patches. */
import { getAttempt } from '../../../runtimes/world/index.ts';
import { formatMs } from '../../pictures/index.ts';
import type { KindContext } from '../catalog/kind.ts';
import { badge, h, type Markup } from '../html/render.ts';
import { registerView } from '../html/views.ts';
import { hrefs, kv, noscriptRefresh, when } from './common.ts';
import { patchCard } from './patch.ts';
import { usageFacts } from './reads.ts';
import { pagedWaterfall } from './waterfall.ts';

/** The live marker: pages that hold it subscribe to the run's SSE stream (see live-script.ts). */
export function liveBox(run_id: string | null | undefined, running: boolean, events = ''): Markup {
  if (!running || !run_id) return h``;
  return h`<span class="muted" data-live-src="/runs/${encodeURIComponent(run_id)}/events" data-live-events="${events}"><span class="live-dot"></span>live</span>${noscriptRefresh()}`;
}

async function attemptView(ctx: KindContext, record: Record<string, unknown>, url: URL) {
  const a = await getAttempt(ctx.store, { attempt_id: String(record.attempt_id) });
  const running = a.status === 'running';
  const duration = a.ended_at ? formatMs(a.ended_at - a.started_at) : null;
  const body = h`<div data-live-region="status" class="chain">${badge(a.status)} ${liveBox(a.run_id, running)}
<a href="${hrefs.world(a.world_slug)}">world ${a.world_slug}</a><a href="${hrefs.worldTurn(a.world_slug, a.attempted_turn)}">turn ${a.attempted_turn}</a>${
    a.run_id ? h`<a href="${hrefs.run(a.run_id)}">engine run</a>` : ''
  }</div>
<div class="panel" data-live-region="facts">${kv([
    ['started', when(a.started_at)],
    ['ended', a.ended_at ? when(a.ended_at) : null],
    ['duration', duration],
    ['source invocations', a.source_invocation_count],
    ['patches', a.patches.length],
    ...usageFacts(record.usage),
    ['failure', a.failure ? `${a.failure.code}: ${a.failure.message}` : null],
  ])}</div>
<h2>Waterfall</h2><div data-live-region="waterfall">${await pagedWaterfall(
    ctx.store,
    { attempt_id: a.attempt_id },
    url,
    `Calls of attempt ${a.attempt_id}`,
  )}</div>
<h2>Patches</h2><div data-live-region="patches">${
    a.patches.length
      ? a.patches.map((p) => patchCard(p, a))
      : h`<p class="muted">No patches${running ? ' yet' : ''}.</p>`
  }</div>`;
  return {
    title: `${a.world_slug} · turn ${a.attempted_turn} · attempt`,
    crumbs: [
      { href: hrefs.world(a.world_slug), title: `world ${a.world_slug}` },
      { href: hrefs.worldTurn(a.world_slug, a.attempted_turn), title: `turn ${a.attempted_turn}` },
    ],
    body,
  };
}

registerView('attempts', attemptView);
