/**
 * The dev servers a bench calls (`noema dev scripted-model`, `noema dev toys`, `noema dev
 * mcp-fixture`), each in a process of its own as a user's providers are: their serving is not the
 * measured process's work.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startCli } from '../../src/testing/cli.ts';

/** A dev server to start: its `noema` arguments and the line that gives its URL (first group). */
export interface DevService {
  args: string[];
  ready: RegExp;
  /** A folder of the service's own (its script), removed once it stopped. */
  dir?: string;
}

/** `noema dev scripted-model` answering with `script` (written to a file of its own). */
export function scriptedModel(script: unknown): DevService {
  const dir = mkdtempSync(join(tmpdir(), 'noema-bench-script-'));
  const scriptFile = join(dir, 'script.json');
  writeFileSync(scriptFile, JSON.stringify(script));
  return {
    args: ['dev', 'scripted-model', '--script', scriptFile, '--port', '0'],
    ready: /NOEMA_LLM_BASE_URL=(\S+)/,
    dir,
  };
}

/** Starts `services`; resolves with their URLs, in order, once each has said it serves. */
export async function startDevServices(
  services: readonly DevService[],
): Promise<{ urls: string[]; close(): Promise<void> }> {
  const running = services.map((s) => startCli(s.args));
  const close = async () => {
    for (const r of running) r.child.kill('SIGTERM');
    await Promise.all(running.map((r) => r.exited));
    for (const s of services) if (s.dir) rmSync(s.dir, { recursive: true, force: true });
  };
  try {
    const urls: string[] = [];
    for (const [i, r] of running.entries()) urls.push((await r.waitFor(services[i]!.ready))[1]!);
    return { urls, close };
  } catch (err) {
    await close();
    throw err;
  }
}
