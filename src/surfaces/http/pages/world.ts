/**
 * The world page, at its latest turn or any committed turn: the turn timeline (turns × subjects, a
 * mark per patch, failures red), the state at that turn, and what changed since the previous turn —
 * each change linked to the patch, generation and LLM call that caused it.
 */
import { getAttempt, getWorld, listAllAttempts } from '../../../runtimes/world/index.ts';
import type { Queryable } from '../../../store/store.ts';
import { type TimelineMark, turnTimelinePicture } from '../../pictures/index.ts';
import type { KindContext } from '../catalog/kind.ts';
import { badge, h, type Markup, picture } from '../html/render.ts';
import { registerView, type ViewResult } from '../html/views.ts';
import { liveBox } from './attempt.ts';
import { hrefs, kv } from './common.ts';
import { type Transition, targetOf, transitionRows } from './patch.ts';

type Attempt = Awaited<ReturnType<typeof getAttempt>>;

/** Attempts drawn on the timeline (the most recent ones; older turns are reached by the turn links). */
const TIMELINE_ATTEMPTS = 40;

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

function timeline(slug: string, attempts: Attempt[], failedSubject: string | undefined): Markup {
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
  if (!attempts.length) return h`<p class="muted">No turns run yet.</p>`;
  return picture(
    turnTimelinePicture({
      turns: attempts.map((a) => a.attempted_turn),
      subjects,
      marks,
      title: `Turn timeline of ${slug}`,
    }),
  );
}

export async function worldPage(store: Queryable, slug: string, turn?: number): Promise<ViewResult> {
  const world = await getWorld(store, { world_slug: slug, ...(turn !== undefined ? { turn } : {}) });
  const list = await listAllAttempts(store, { world_slug: slug, limit: TIMELINE_ATTEMPTS });
  const attempts: Attempt[] = [];
  for (const item of list.items) attempts.push(await getAttempt(store, { attempt_id: item.attempt_id }));
  attempts.reverse();
  const running = attempts.find((a) => a.status === 'running');
  const committed = attempts.find((a) => a.status === 'committed' && a.attempted_turn === world.turn);
  const changes = committed ? committed.patches.flatMap((p) => transitionRows(p, committed, true)) : [];
  const changed = new Set(
    committed?.patches.flatMap((p) => (p.transitions as Transition[]).map((t) => targetOf(t))) ?? [],
  );
  const entities = Object.entries(world.entities as Record<string, Record<string, unknown>>);
  const envs = Object.entries(world.environments as Record<string, { content?: string }>);
  const body = h`<div class="chain" data-live-region="status">${
    running
      ? h`${badge('running')} ${liveBox(running.run_id, true)} <a href="${hrefs.attempt(running.attempt_id)}">turn ${running.attempted_turn} running</a>`
      : ''
  }<span>turn ${world.turn} of ${world.head_turn}</span><span>${world.simulation_time ?? ''}</span>
<a href="/scenarios/hash/${world.scenario_hash}">scenario</a><a href="/attempts?world_slug=${encodeURIComponent(slug)}">all attempts</a></div>
<h2>Turn timeline</h2><div data-live-region="timeline">${timeline(slug, attempts, entities[0]?.[0])}${
    list.next_cursor ? h`<p class="muted">The last ${TIMELINE_ATTEMPTS} attempts are drawn.</p>` : ''
  }</div>
<h2>Turns</h2>${turnLinks(slug, world.head_turn, world.turn)}
<h2>What changed in turn ${world.turn}</h2>${
    world.turn === 0
      ? h`<p class="muted">Turn 0 is the scenario's initial state.</p>`
      : changes.length
        ? h`<div class="scroll"><table><tr><th>target</th><th>op</th><th>before (turn ${world.turn - 1})</th><th>after</th><th>why</th></tr>${changes}</table></div>${
            committed
              ? h`<p class="muted"><a href="${hrefs.attempt(committed.attempt_id)}">the attempt that committed turn ${world.turn}</a></p>`
              : ''
          }`
        : h`<p class="muted">Nothing changed${committed ? '' : ' (the attempt is older than the timeline window)'}.</p>`
  }
<h2>State at turn ${world.turn}</h2><div class="scroll"><table><tr><th>entity</th><th>kind</th><th>state</th><th>memory</th></tr>${entities.map(
    ([id, e]) =>
      h`<tr${changed.has(id) ? h` style="background:#fffbea"` : ''}><td><strong>${id}</strong></td><td>${String(e.kind ?? '')}</td><td>${String(
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

registerView('worlds', (ctx: KindContext, record) => worldPage(ctx.store, String(record.world_slug)));
