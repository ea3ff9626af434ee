/**
 * A session's turns as the session page shows them: its stored events (`agent_session_events`, the
 * latest `SESSION_EVENTS_SHOWN`) grouped by run — the question, thinking, tool calls with their
 * results, memories saved, ECS forms and answers, errors — each turn with its run and duration.
 */

import type { Queryable } from '../../../store/store.ts';
import { formatMs } from '../../pictures/index.ts';
import { badge, h, type Markup } from '../html/render.ts';
import { hrefs, when } from './common.ts';
import { memoryHrefs } from './memory-branches.ts';

/** Events read for one session page (the newest; older turns are cut). */
export const SESSION_EVENTS_SHOWN = 400;

export interface StoredSessionEvent {
  seq: number;
  event: string;
  run_id: string;
  data: Record<string, unknown>;
  at: number;
}

export async function recentSessionEvents(
  store: Queryable,
  session_id: string,
  limit = SESSION_EVENTS_SHOWN,
): Promise<{ events: StoredSessionEvent[]; cut: boolean }> {
  const rows = await store.all<{ seq: number; event: string; run_id: string; data: string; at: number }>(
    'SELECT seq, event, run_id, data, at FROM agent_session_events WHERE session_id = ? ORDER BY seq DESC LIMIT ?',
    [session_id, limit + 1],
  );
  const cut = rows.length > limit;
  const events = rows
    .slice(0, limit)
    .reverse()
    .map((r) => ({
      seq: Number(r.seq),
      event: r.event,
      run_id: r.run_id,
      data: JSON.parse(r.data) as Record<string, unknown>,
      at: Number(r.at),
    }));
  return { events, cut };
}

/** The ECS form the session waits on: the newest `ecs` event's. */
export function waitingForm(
  events: readonly StoredSessionEvent[],
): { contract_id: string; form: Record<string, unknown> } | null {
  const last = [...events].reverse().find((e) => e.event === 'ecs');
  if (!last || typeof last.data.contract_id !== 'string') return null;
  const form = last.data.form;
  return {
    contract_id: last.data.contract_id,
    form: form && typeof form === 'object' ? (form as Record<string, unknown>) : {},
  };
}

const clip = (v: unknown, n = 400): string => {
  const s = typeof v === 'string' ? v : JSON.stringify(v ?? null);
  return s.length > n ? `${s.slice(0, n)}…` : s;
};

/** The entry a completed reasoning-memory tool call wrote (`{ entry: { seq, branch } }`), linked on its branch. */
function writtenNote(d: Record<string, unknown>, workspace: string | undefined): Markup | '' {
  if (
    !workspace ||
    d.status !== 'COMPLETED' ||
    typeof d.name !== 'string' ||
    !d.name.startsWith('branchmind_')
  )
    return '';
  const entry = (d.result as { entry?: { seq?: unknown; branch?: unknown } } | null)?.entry;
  if (!entry || typeof entry.seq !== 'number' || typeof entry.branch !== 'string') return '';
  return h` <a href="${memoryHrefs.branch(workspace, entry.branch)}#seq-${String(entry.seq)}">note #${String(entry.seq)} on ${entry.branch}</a>`;
}

function item(e: StoredSessionEvent, workspace: string | undefined): Markup | '' {
  const d = e.data;
  switch (e.event) {
    case 'thinking':
      return h`<li class="ev ev-thinking"><span class="role">thinking${d.mode ? ` · ${String(d.mode)}` : ''}</span> ${clip(d.thinking)}</li>`;
    case 'tool_result':
      return h`<li class="ev ev-tool"><span class="role">tool call</span> <code>${String(d.name)}</code> ${clip(d.args, 200)} → ${badge(
        d.status,
      )} ${d.status === 'COMPLETED' ? clip(d.result) : clip(d.error_message)}${writtenNote(d, workspace)}</li>`;
    case 'memory_saved':
      return h`<li class="ev"><span class="role">memory saved</span> ${clip(d.text)}</li>`;
    case 'ecs': {
      const form = (d.form ?? {}) as { title?: unknown; description?: unknown };
      return h`<li class="ev ev-form"><span class="role">form</span> <strong>${String(form.title ?? 'a form')}</strong> ${
        form.description ? String(form.description) : ''
      }</li>`;
    }
    case 'text':
      return h`<li class="ev ev-answer"><span class="role">answer</span><pre tabindex="0">${String(d.text ?? '')}</pre></li>`;
    case 'error':
      return h`<li class="ev ev-error"><span class="role">error</span> ${String(d.code ?? '')}: ${String(d.message ?? '')}</li>`;
    case 'status':
      if (d.phase === 'continuing')
        return h`<li class="ev"><span class="role">form answered</span> the turn continues</li>`;
      if (d.phase === 'retry')
        return h`<li class="ev ev-error"><span class="role">retry</span> ${String(d.node_id ?? '')} ${
          d.error && typeof d.error === 'object' ? String((d.error as { code?: unknown }).code ?? '') : ''
        }</li>`;
      return '';
    default:
      return '';
  }
}

/**
 * The turns, oldest first; the question of each is its `execution_state.query` when stored. With the
 * agent's reasoning-memory `workspace`, the notes its tool calls wrote link to their branch pages.
 */
export function sessionTurns(
  events: readonly StoredSessionEvent[],
  cut: boolean,
  workspace?: string,
): Markup {
  const runs: Array<{ run_id: string; events: StoredSessionEvent[] }> = [];
  for (const e of events) {
    const last = runs.at(-1);
    if (last && last.run_id === e.run_id) last.events.push(e);
    else runs.push({ run_id: e.run_id, events: [e] });
  }
  if (!runs.length) return h`<p class="muted">No turns yet.</p>`;
  return h`${cut ? h`<p class="muted">Older turns are cut; the newest ${String(SESSION_EVENTS_SHOWN)} events are shown.</p>` : ''}${runs.map(
    (r, i) => {
      const first = r.events[0]!;
      const last = r.events.at(-1)!;
      const query = r.events.find((e) => e.event === 'execution_state')?.data.query;
      const done = r.events.find((e) => e.event === 'done');
      return h`<section class="turn panel" aria-label="turn ${String(i + 1)}"><h3>Turn ${String(i + 1)} <span class="muted">${when(
        first.at,
      )} · ${formatMs(last.at - first.at)}${done ? '' : ' · not finished'}</span> <a href="${hrefs.run(r.run_id)}">run</a></h3>${
        typeof query === 'string' ? h`<p class="ev-question"><span class="role">user</span> ${query}</p>` : ''
      }<ol class="events">${r.events.map((e) => item(e, workspace))}</ol></section>`;
    },
  )}`;
}
