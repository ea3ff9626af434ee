/**
 * Runs the agent anchors (bench/anchors, shared with the engine benchmark) in child processes:
 * LangGraph.js with its SQLite checkpointer, under the first Node here that can load its native
 * better-sqlite3; Mastra's agent with its memory on libSQL, against its own scripted model process.
 * Each returns per-interaction framework µs, or why it could not run.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { anchorsDir, anchorsMissing } from '../engine/anchors.ts';
import { scriptedModel, startDevServices } from '../lib/dev-services.ts';

function run(
  node: string,
  script: string,
  args: string[],
): { ok: true; json: unknown } | { ok: false; error: string } {
  const code = readFileSync(join(import.meta.dirname, script), 'utf8');
  const r = spawnSync(node, ['--input-type=module', '-e', code, ...args], {
    cwd: anchorsDir,
    encoding: 'utf8',
    timeout: 600_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  const line = r.stdout.trim().split('\n').at(-1) ?? '';
  if (r.status === 0 && line.startsWith('{')) return { ok: true, json: JSON.parse(line) };
  return { ok: false, error: (r.stderr || r.stdout || `exit ${r.status}`).slice(-600) };
}

export function langGraphAgentAnchor(
  iterations: number,
  /** Messages per thread: a new thread after that many. */
  conversation: number,
): { node: string; interactionUs: number[] } | string {
  const installError = anchorsMissing();
  if (installError) return installError;
  const nodes = [process.execPath, '/usr/bin/node'].filter((p, i, a) => existsSync(p) && a.indexOf(p) === i);
  let lastError = '';
  for (const node of nodes) {
    const probe = run(node, 'anchor-langgraph.mjs', ['probe']);
    if (!probe.ok) {
      lastError = probe.error;
      continue;
    }
    const r = run(node, 'anchor-langgraph.mjs', ['run', String(iterations), String(conversation)]);
    return r.ok
      ? (r.json as { node: string; interactionUs: number[] })
      : `LangGraph.js agent anchor failed: ${r.error}`;
  }
  return `LangGraph.js could not be loaded by any Node here: ${lastError}`;
}

/** The Mastra anchor's model: a tool call first, the answer once the tool's result is the last message. */
const MASTRA_SCRIPT = {
  rules: [{ match: { last_message_contains: '"sum"' }, reply: { text: 'The sum is 5.' } }],
  default: { tool_calls: [{ name: 'add', arguments: { a: 2, b: 3 } }] },
};

export async function mastraAgentAnchor(
  iterations: number,
  /** Messages per thread: a new thread after that many. */
  conversation: number,
): Promise<{ node: string; interactionUs: number[]; wallUs: number[] } | string> {
  const installError = anchorsMissing();
  if (installError) return installError;
  const model = await startDevServices([scriptedModel(MASTRA_SCRIPT)]);
  try {
    const url = model.urls[0]!;
    const probe = run(process.execPath, 'anchor-mastra.mjs', ['probe']);
    if (!probe.ok) return `Mastra could not be loaded: ${probe.error}`;
    const r = run(process.execPath, 'anchor-mastra.mjs', [
      'run',
      String(iterations),
      url,
      String(conversation),
    ]);
    return r.ok
      ? (r.json as { node: string; interactionUs: number[]; wallUs: number[] })
      : `Mastra agent anchor failed: ${r.error}`;
  } finally {
    await model.close();
  }
}
