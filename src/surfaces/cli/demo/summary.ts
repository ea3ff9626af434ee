/**
 * The demo's closing summary: what happened in the world, the session and the flowchart run, and
 * the pages to open (absolute URLs when the demo serves them, paths otherwise).
 */
import type { RunTurnResult } from '../../../runtimes/world/index.ts';
import type { DemoSession } from './agent.ts';
import type { DemoFlowRun } from './flow.ts';
import { DEMO_WORLD } from './world.ts';

export interface DemoOutcome {
  seconds: number;
  store: string;
  model: string;
  createdWorld: boolean;
  turns: RunTurnResult[];
  session: DemoSession;
  flow: DemoFlowRun;
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/** The catalog's path of one record of a kind, or null when this build serves no such kind. */
export type HrefOf = (kind: string, key: string) => string | null;

/**
 * The pages worth opening, by name; `base` is the server's URL or '' for bare paths. Paths come from
 * the catalog, so a kind that gains a page (flowchart runs) is linked as soon as it is served.
 */
export function demoPages(o: DemoOutcome, base: string, hrefOf: HrefOf): Array<[string, string]> {
  // Turn 1 is the busy one (the candy bar, the empty machine, the crumb); else the first turn run now.
  const attempt = o.turns.find((t) => t.turn === 1) ?? o.turns[0];
  const pages: Array<[string, string]> = [['world', hrefOf('worlds', DEMO_WORLD) ?? `/worlds/${DEMO_WORLD}`]];
  if (attempt)
    pages.push([
      `turn ${attempt.turn} attempt`,
      hrefOf('attempts', attempt.attempt_id) ?? `/attempts/${attempt.attempt_id}`,
    ]);
  pages.push([
    'agent session',
    hrefOf('sessions', o.session.session_id) ?? `/sessions/${o.session.session_id}`,
  ]);
  pages.push([
    'flowchart run',
    hrefOf('flowchart-runs', o.flow.flowchart_run_id) ??
      `/api/flowcharts/${o.flow.flowchart_id}/runs/${o.flow.flowchart_run_id}`,
  ]);
  return pages.map(([name, path]) => [name, `${base}${path}`]);
}

export function summaryLines(o: DemoOutcome, base: string, hrefOf: HrefOf): string[] {
  const first = o.turns[0]?.turn;
  const last = o.turns.at(-1)?.turn;
  const patches = o.turns.reduce((n, t) => n + t.patches.length, 0);
  const lines = [
    '',
    `Demo done in ${o.seconds.toFixed(1)} s (store ${o.store}, model ${o.model})`,
    `  world ${DEMO_WORLD}${o.createdWorld ? ' (new)' : ' (continued)'}: turns ${first}–${last} committed, ${patches} patches`,
  ];
  // Patches without effects ("nothing much happens") are counted above, not listed.
  for (const t of o.turns) {
    const events = t.patches.filter((p) => p.effects.length > 0).map((p) => p.narration);
    lines.push(`    turn ${t.turn}: ${events.length > 0 ? clip(events.join(' '), 240) : 'a quiet turn'}`);
  }
  const s = o.session;
  const tools = s.tool_calls.map((c) => `${c.name} ${c.status}`).join(', ') || 'none';
  const forms = s.forms.map((f) => `"${f.title}" answered ${JSON.stringify(f.answer)}`).join(', ') || 'none';
  lines.push(`  agent session ${s.session_id}: tool calls ${tools}; forms ${forms}`);
  if (s.replies.length > 0) lines.push(`    replies: ${s.replies.map((r) => `"${clip(r, 60)}"`).join(', ')}`);
  const nodeTypes = [...new Set(o.flow.nodes.filter((n) => n.status === 'succeeded').map((n) => n.type))];
  lines.push(
    `  flowchart run ${o.flow.flowchart_run_id}: ${o.flow.status}, ${o.flow.nodes.length} node runs (${nodeTypes.join(', ')})`,
  );
  lines.push('', base ? 'Where to look:' : 'Where to look (after `noema serve` on this store):');
  const pages = demoPages(o, base, hrefOf);
  const width = Math.max(...pages.map(([name]) => name.length));
  for (const [name, url] of pages) lines.push(`  ${name.padEnd(width)}  ${url}`);
  return lines;
}
