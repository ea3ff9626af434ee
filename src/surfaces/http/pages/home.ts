/**
 * The home page: what this Noema holds at a glance — worlds, agent sessions, flowcharts, recent runs
 * and recent failures, each with a count (counted up to a bound, shown as "200+" beyond it).
 */
import { listRuns } from '../../../engine/index.ts';
import { listSessions } from '../../../runtimes/agent/index.ts';
import { listFlowcharts } from '../../../runtimes/flow/index.ts';
import { listAllAttempts, listWorlds } from '../../../runtimes/world/index.ts';
import type { Store } from '../../../store/store.ts';
import { badge, h, type Markup } from '../html/render.ts';
import { hrefs, liveWatch, when } from './common.ts';

const COUNT_BOUND = 200;
const SHOWN = 8;

const counted = (page: { items: unknown[]; next_cursor: string | null }) =>
  page.next_cursor ? `${COUNT_BOUND}+` : String(page.items.length);

function card(n: string, label: string, href: string): Markup {
  return h`<a class="card" href="${href}"><div class="n">${n}</div><div class="l">${label}</div></a>`;
}

function table(head: string[], rows: Markup[], empty: string): Markup {
  if (!rows.length) return h`<p class="muted">${empty}</p>`;
  return h`<div class="scroll"><table><tr>${head.map((c) => h`<th>${c}</th>`)}</tr>${rows}</table></div>`;
}

export interface Home {
  /** The page body. */
  body: Markup;
  /** The same facts as JSON (the page's twin). */
  json: Record<string, unknown>;
}

export async function homePage(store: Store): Promise<Home> {
  const [worlds, sessions, runs, failedRuns, failedAttempts] = await Promise.all([
    listWorlds(store, { limit: COUNT_BOUND }),
    listSessions(store, { limit: COUNT_BOUND }),
    listRuns(store, { limit: COUNT_BOUND }),
    listRuns(store, { limit: SHOWN, status: 'failed' }),
    listAllAttempts(store, { limit: SHOWN, status: 'failed' }),
  ]);
  const flowcharts = await listFlowcharts(store, { limit: SHOWN, offset: 0 });
  const failures = [
    ...failedAttempts.items.map((a) => ({
      at: a.started_at,
      row: h`<tr><td><a href="${hrefs.attempt(a.attempt_id)}">attempt · ${a.world_slug} turn ${String(a.attempted_turn)}</a></td><td>${badge(a.status)}</td><td>${when(a.started_at)}</td></tr>`,
    })),
    ...failedRuns.items.map((r) => ({
      at: Date.parse(r.updated_at),
      row: h`<tr><td><a href="${hrefs.run(r.run_id)}">run ${r.run_id.slice(0, 13)}…</a> <span class="muted">${
        (r.error as { code?: string } | null)?.code ?? ''
      }</span></td><td>${badge(r.status)}</td><td>${when(r.updated_at)}</td></tr>`,
    })),
  ]
    .sort((a, b) => b.at - a.at)
    .slice(0, SHOWN);
  const json = {
    counts: {
      worlds: counted(worlds),
      sessions: counted(sessions),
      flowcharts: flowcharts.count,
      runs: counted(runs),
      recent_failures: failures.length,
    },
    worlds: worlds.items.slice(0, SHOWN),
    sessions: sessions.items.slice(0, SHOWN),
    flowcharts: flowcharts.items,
    runs: runs.items.slice(0, SHOWN).map(({ cursor: _c, ...r }) => r),
    failures: [...failedAttempts.items, ...failedRuns.items.map(({ cursor: _c, ...r }) => r)],
  };
  // Runs show up as they start and finish: the page watches the runs it lists.
  const shownRuns = runs.items.slice(0, SHOWN);
  const body = h`<div data-live-region="home">${liveWatch(
    `/runs?limit=${SHOWN}`,
    'run_id',
    shownRuns as unknown as Array<Record<string, unknown>>,
  )}<div class="cards">
${card(counted(worlds), 'worlds', '/worlds')}${card(counted(sessions), 'agent sessions', '/sessions')}${card(
  String(flowcharts.count),
  'flowcharts',
  '/flowcharts',
)}${card(counted(runs), 'runs', '/runs')}${card(String(failures.length === SHOWN ? `${SHOWN}+` : failures.length), 'recent failures', '#failures')}
</div>
<div class="grid2"><section><h2>Worlds</h2>${table(
    ['world', 'turn', 'created'],
    worlds.items
      .slice(0, SHOWN)
      .map(
        (w) =>
          h`<tr><td><a href="${hrefs.world(w.world_slug)}">${w.world_slug}</a></td><td>${String(w.head_turn)}</td><td>${when(w.created_at)}</td></tr>`,
      ),
    'No worlds yet: noema world create, or noema demo.',
  )}</section>
<section><h2>Agent sessions</h2>${table(
    ['session', 'user', 'status', 'turns'],
    sessions.items
      .slice(0, SHOWN)
      .map(
        (s) =>
          h`<tr><td><a href="${hrefs.session(String(s.session_id))}">${String(s.session_id).slice(0, 13)}…</a></td><td>${String(
            s.user_id ?? '',
          )}</td><td>${badge(s.status)}</td><td>${String(s.turn_count ?? '')}</td></tr>`,
      ),
    'No agent sessions yet.',
  )}</section>
<section><h2>Flowcharts</h2>${table(
    ['flowchart', 'revision', 'updated'],
    flowcharts.items.map(
      (f) =>
        h`<tr><td><a href="/flowcharts/${encodeURIComponent(f.flowchart_id)}">${f.name || f.flowchart_id}</a></td><td>${String(
          f.graph_revision,
        )}</td><td>${when(f.updated_at)}</td></tr>`,
    ),
    'No flowcharts yet.',
  )}</section>
<section><h2>Recent runs</h2>${table(
    ['run', 'status', 'updated'],
    runs.items
      .slice(0, SHOWN)
      .map(
        (r) =>
          h`<tr><td><a href="${hrefs.run(r.run_id)}">${r.run_id.slice(0, 13)}…</a></td><td>${badge(r.status)}</td><td>${when(r.updated_at)}</td></tr>`,
      ),
    'No runs yet.',
  )}</section></div>
<h2 id="failures">Recent failures</h2>${table(
    ['what', 'status', 'when'],
    failures.map((f) => f.row),
    'No failures. ',
  )}</div>`;
  return { body, json };
}
