/**
 * A demo-like store for crawling the browser: the park world run for a few turns, a fork of it, an
 * agent session with a tool call and an answered ECS form, a flowchart run, and a reasoning-memory
 * workspace with a branch, notes, a graph and a merge conflict — served by a real
 * `noema serve` surface (test/browser/fixture.ts).
 */
import { branchCreate, graphApply, graphMerge, init, notesCommit } from '../../src/memory/index.ts';
import { createFlowchart, runFlowchart } from '../../src/runtimes/flow/index.ts';
import { forkWorld } from '../../src/runtimes/world/index.ts';
import { startAgentKit } from '../../src/testing/agent-kit.ts';
import { EXAMPLE, EXAMPLE_SCRIPT, flowKit, readJson } from '../../src/testing/flow-kit.ts';
import type { StoreKind } from '../../src/testing/stores.ts';
import { type BrowserWorld, startBrowserWorld } from './fixture.ts';

export interface DemoStore {
  world: BrowserWorld;
  session_id: string;
  agent_hash: string;
  flowchart_id: string;
  flowchart_run_id: string;
  close(): Promise<void>;
}

export async function startDemoStore(kind: StoreKind = 'sqlite'): Promise<DemoStore> {
  const world = await startBrowserWorld({ turns: 3, kind });
  const store = world.ts.store;
  await forkWorld(store, { world_slug: 'park', at_turn: 2, new_world_slug: 'park-fork' });
  const agents = await startAgentKit(store);
  const { session_id } = await agents.runtime.createSession({ agent_label: 'calculator', user_id: 'ada' });
  await agents.runtime.sendMessage(session_id, { content: 'please add 2 and 3' });
  const waiting = await agents.runtime.sendMessage(session_id, { content: 'book a slot' });
  await agents.runtime.respondEcs({
    session_id,
    contract_id: waiting.outcome.waiting[0]!.contract_id,
    response: { day: 'monday' },
  });
  await agents.runtime.continueEcs({ session_id });
  await reasoningWorkspace(store);
  const flows = await flowKit(store, readJson(EXAMPLE_SCRIPT));
  const flowchart = await createFlowchart(store, readJson(EXAMPLE));
  const { flowchart_run_id } = await runFlowchart(store, flows.engine, flowchart.flowchart_id, {
    input: { message: 'jam' },
  });
  return {
    world,
    session_id,
    agent_hash: agents.agent_hash,
    flowchart_id: flowchart.flowchart_id,
    flowchart_run_id,
    async close() {
      await agents.close();
      await flows.close();
      await world.close();
    },
  };
}

/** Workspace `plans`: notes and a graph on main, a branch `idea` changing both, merged back with one conflict. */
async function reasoningWorkspace(store: BrowserWorld['ts']['store']): Promise<void> {
  const up = (id: string, title: string) => ({ op: 'node_upsert', id, type: 'hypothesis', title });
  const on = (branch: string) => ({ workspace: 'plans', branch, doc: 'graph' });
  await init(store, { workspace: 'plans' });
  await notesCommit(store, {
    workspace: 'plans',
    doc: 'notes',
    title: 'goal',
    content: 'open the park by noon',
  });
  await graphApply(store, { ...on('main'), ops: [up('gate', 'open the gate'), up('map', 'print maps')] });
  await branchCreate(store, { workspace: 'plans', name: 'idea', from: 'main' });
  await notesCommit(store, {
    workspace: 'plans',
    branch: 'idea',
    doc: 'notes',
    content: 'what if we open at ten?',
  });
  await graphApply(store, {
    ...on('idea'),
    ops: [
      up('gate', 'open the gate at ten'),
      { op: 'edge_upsert', from: 'map', rel: 'supports', to: 'gate' },
    ],
  });
  await graphApply(store, { ...on('main'), ops: [up('gate', 'open the gate at noon')] });
  await graphMerge(store, { workspace: 'plans', from: 'idea', into: 'main' });
}

/** A GET with a browser session's cookie; a stream's body is not waited for (its status is the answer). */
export async function getAs(cookie: string, url: string, accept = 'text/html') {
  const stop = new AbortController();
  const res = await fetch(url, { headers: { accept, cookie }, redirect: 'manual', signal: stop.signal });
  const type = res.headers.get('content-type') ?? '';
  const html = type.startsWith('text/html') ? await res.text() : null;
  stop.abort();
  return { status: res.status, type, html };
}

function linksOf(html: string, base: string): string[] {
  const out: string[] = [];
  for (const m of html.matchAll(/\s(?:href|src|action)="([^"]*)"/g)) {
    const raw = m[1]!
      .replace(/&amp;/g, '&')
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'");
    if (raw.startsWith('#') || raw === '') continue;
    const url = new URL(raw, base);
    if (url.origin !== new URL(base).origin) continue;
    url.hash = '';
    out.push(url.href);
  }
  return out;
}

export interface Crawl {
  /** Every URL fetched, in the order reached, with its status and the page that linked it. */
  fetched: Array<{ url: string; status: number; from: string | undefined; html: boolean }>;
  /** The actions of the POST forms seen (not followed). */
  actions: Set<string>;
}

/** Breadth-first from `home` over same-origin links (stylesheets, scripts and icons too), `max` fetches at most. */
export async function crawl(cookie: string, home: string, max = 900): Promise<Crawl> {
  const seen = new Set<string>([home]);
  const from = new Map<string, string>();
  const queue = [home];
  const out: Crawl = { fetched: [], actions: new Set() };
  while (queue.length && out.fetched.length < max) {
    const url = queue.shift()!;
    const res = await getAs(cookie, url);
    out.fetched.push({ url, status: res.status, from: from.get(url), html: res.html !== null });
    if (res.status >= 400 || res.html === null) continue;
    for (const m of res.html.matchAll(/<form method="post" action="([^"]+)"/g))
      out.actions.add(new URL(m[1]!, url).href);
    for (const link of linksOf(res.html, url)) {
      if (seen.has(link) || out.actions.has(link) || link.endsWith('/logout')) continue;
      seen.add(link);
      from.set(link, url);
      queue.push(link);
    }
  }
  return out;
}
