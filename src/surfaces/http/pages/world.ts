/**
 * The world page, at its latest turn or any committed turn: the turn timeline (turns × subjects, a
 * mark per patch, failures red) a page of turns at a time, the state at that turn, and what changed
 * since the previous turn — each change linked to the patch, generation and LLM call that caused it.
 */
import { getAttempt, getWorld, listAllAttempts } from '../../../runtimes/world/index.ts';
import type { Queryable } from '../../../store/store.ts';
import { type TimelineMark, turnTimelinePicture } from '../../pictures/index.ts';
import type { KindContext } from '../catalog/kind.ts';
import { badge, h, type Markup, picture } from '../html/render.ts';
import { registerView, type ViewResult } from '../html/views.ts';
import { liveBox } from './attempt.ts';
import { hrefs, kv, liveWatch } from './common.ts';
import { compareForm } from './compare.ts';
import { pageCursor, pageHref, pager } from './paging.ts';
import { type Transition, targetOf, transitionRows } from './patch.ts';
import {
  committedAttemptId,
  runningAttempt,
  type TimelineAttempt,
  type TurnWindow,
  turnWindow,
} from './reads.ts';
import { forkForm, queuedTurns, runTurnForm } from './world-actions.ts';

/** Turns on one page of the timeline; the pager reaches the others. */
export const TIMELINE_TURNS = 25;

function turnLinks(slug: string, head: number, current: number): Markup {
  const turns = new Set<number>();
  for (let t = 0; t <= Math.min(head, 4); t++) turns.add(t);
  for (let t = Math.max(0, current - 6); t <= Math.min(head, current + 6); t++) turns.add(t);
  for (let t = Math.max(0, head - 4); t <= head; t++) turns.add(t);
  const sorted = [...turns].sort((a, b) => a - b);
  return h`<div class="turns">${sorted.map((t, i) => {
    const gap = i > 0 && t - sorted[i - 1]! > 1 ? h`<span class="muted">…</span>` : '';
    return t === current
      ? h`${gap}<span class="here">${String(t)}</span>`
      : h`${gap}<a href="${hrefs.worldTurn(slug, t)}">${String(t)}</a>`;
  })}</div>`;
}

function timeline(slug: string, window: TurnWindow, failedSubject: string | undefined): Markup {
  const attempts: TimelineAttempt[] = window.attempts;
  const subjects: string[] = [];
  const marks: TimelineMark[] = [];
  for (const a of attempts)
    for (const p of a.patches)
      if (!subjects.includes(p.subject_entity_id)) subjects.push(p.subject_entity_id);
  for (const a of attempts) {
    if (a.status === 'committed')
      for (const p of a.patches)
        marks.push({
          turn: a.attempted_turn,
          subject: p.subject_entity_id,
          status: 'committed',
          label: p.narration,
          href: `${hrefs.attempt(a.attempt_id)}#patch-${p.patch_seq}`,
        });
    else if (a.status === 'failed' || a.status === 'interrupted') {
      const subject = a.failure?.subject_entity_id ?? subjects[0] ?? failedSubject ?? 'world';
      if (!subjects.includes(subject)) subjects.push(subject);
      marks.push({
        turn: a.attempted_turn,
        subject,
        status: 'failed',
        label: a.failure ? `${a.failure.code}: ${a.failure.message}` : a.status,
        href: hrefs.attempt(a.attempt_id),
      });
    }
  }
  if (window.last === 0) return h`<p class="muted">No turns run yet.</p>`;
  if (window.from > window.to) return h`<p class="muted">No turns on this page.</p>`;
  const turns = Array.from({ length: window.to - window.from + 1 }, (_, i) => window.from + i);
  return picture(turnTimelinePicture({ turns, subjects, marks, title: `Turn timeline of ${slug}` }));
}

/** "← older turns" / "newer turns →" under the timeline; the links always open the world page. */
function timelinePager(slug: string, window: TurnWindow, search: string): Markup {
  const path = hrefs.world(slug);
  const hasOlder = window.from > 1;
  const hasNewer = window.to < window.last;
  const shown =
    window.from > window.to
      ? `turns 1–${window.last} are on the other pages`
      : `turns ${window.from}–${window.to} of ${window.last}${
          window.truncated ? ' (the first attempts of this page; the rest are under “all attempts”)' : ''
        }`;
  return pager(
    {
      older: hasOlder ? pageHref(path, search, { before: Math.min(window.from, window.last + 1) }) : null,
      newer: hasNewer ? pageHref(path, search, { after: Math.max(window.to, 0) }) : null,
    },
    shown,
    { older: 'older turns', newer: 'newer turns' },
  );
}

/**
 * The world at its latest turn (`turn` undefined) or at `turn`. The timeline shows the page of turns
 * `url`'s `?before=` / `?after=` names, by default the latest turns (or those around `turn`).
 */
export async function worldPage(
  store: Queryable,
  slug: string,
  turn?: number,
  url?: URL,
  csrf?: string,
): Promise<ViewResult> {
  // Whether the page is live, and the watched list, are read before the world: a turn that commits
  // between these reads and the world's then shows as committed, and one that has not yet committed
  // keeps the page live (or its watch token stale) — a page drawn stale is never also a still page.
  const running = await runningAttempt(store, slug);
  // Between two turns of one "Run turn" press nothing runs: the page stays live until the last.
  const queued = turn === undefined ? queuedTurns(slug) : 0;
  // The latest view follows turns started anywhere: it watches the world's newest attempt.
  const watch =
    turn === undefined
      ? liveWatch(
          `/attempts?${new URLSearchParams({ world_slug: slug, limit: '1' })}`,
          'attempt_id',
          (await listAllAttempts(store, { world_slug: slug, limit: 1 })).items as unknown as Array<
            Record<string, unknown>
          >,
        )
      : '';
  const world = await getWorld(store, { world_slug: slug, ...(turn !== undefined ? { turn } : {}) });
  const cursor = pageCursor(url);
  const window = await turnWindow(
    store,
    slug,
    cursor,
    TIMELINE_TURNS,
    turn === undefined ? undefined : world.turn,
  );
  const committedId = world.turn > 0 ? await committedAttemptId(store, slug, world.turn) : null;
  const committed = committedId ? await getAttempt(store, { attempt_id: committedId }) : null;
  const changes = committed ? committed.patches.flatMap((p) => transitionRows(p, committed, true)) : [];
  const changed = new Set(
    committed?.patches.flatMap((p) => (p.transitions as Transition[]).map((t) => targetOf(t))) ?? [],
  );
  const entities = Object.entries(world.entities as Record<string, Record<string, unknown>>);
  const envs = Object.entries(world.environments as Record<string, { content?: string }>);
  const body = h`<div class="chain" data-live-region="status">${
    running
      ? h`${badge('running')} ${liveBox(running.run_id, true)} <a href="${hrefs.attempt(running.attempt_id)}">turn ${running.attempted_turn} running</a>`
      : queued > 0
        ? h`${badge('queued')} ${liveBox(committed?.run_id ?? null, true)} <span>${String(queued)} turn${queued > 1 ? 's' : ''} to run</span>`
        : ''
  }${watch}<span>turn ${world.turn} of ${world.head_turn}</span><span>${world.simulation_time ?? ''}</span>
<a href="/scenarios/hash/${world.scenario_hash}">scenario</a><a href="/attempts?world_slug=${encodeURIComponent(slug)}">all attempts</a></div>
${
  turn === undefined
    ? h`${runTurnForm(slug, csrf)}<details class="act"><summary>Compare with another turn or world</summary>${compareForm(slug)}</details>`
    : h`<h2>Fork at turn ${world.turn}</h2>${forkForm(slug, world.turn, csrf)}${
        world.turn > 0
          ? h`<p><a href="${hrefs.world(slug)}/compare?turn=${String(world.turn - 1)}&with_turn=${String(world.turn)}">compare with turn ${String(world.turn - 1)}</a></p>`
          : ''
      }`
}
<h2>Turn timeline</h2><div data-live-region="timeline">${timeline(slug, window, entities[0]?.[0])}${timelinePager(
    slug,
    window,
    turn === undefined ? (url?.search ?? '') : '',
  )}</div>
<h2>Turns</h2>${turnLinks(slug, world.head_turn, world.turn)}
<h2>What changed in turn ${world.turn}</h2>${
    world.turn === 0
      ? h`<p class="muted">Turn 0 is the scenario's initial state.</p>`
      : changes.length
        ? h`<div class="scroll"><table><tr><th>target</th><th>op</th><th>state_before (before its patch)</th><th>state_after</th><th>why</th></tr>${changes}</table></div>${
            committed
              ? h`<p class="muted"><a href="${hrefs.attempt(committed.attempt_id)}">the attempt that committed turn ${world.turn}</a></p>`
              : ''
          }`
        : h`<p class="muted">Nothing changed.</p>`
  }
<h2>State at turn ${world.turn}</h2><div class="scroll"><table><tr><th>entity</th><th>kind</th><th>state</th><th>memory</th></tr>${entities.map(
    ([id, e]) =>
      h`<tr${changed.has(id) ? h` class="changed"` : ''}><td><strong>${id}</strong></td><td>${String(e.kind ?? '')}</td><td>${String(
        e.state ?? '',
      )}</td><td class="muted">${String(e.memory ?? '')}</td></tr>`,
  )}</table></div>
${envs.map(([label, env]) => h`<div class="panel"><strong>environment ${label}</strong><p>${env.content ?? ''}</p></div>`)}
${kv([['JSON', h`<a href="${hrefs.worldTurn(slug, world.turn)}?format=json">this turn as JSON</a>`]])}`;
  return {
    title: turn === undefined ? `World ${slug}` : `World ${slug} · turn ${world.turn}`,
    crumbs: [
      { href: '/worlds', title: 'worlds' },
      ...(turn === undefined ? [] : [{ href: hrefs.world(slug), title: slug }]),
    ],
    body,
  };
}

registerView('worlds', (ctx: KindContext, record, url, csrf) =>
  worldPage(ctx.store, String(record.world_slug), undefined, url, csrf),
);
