/** Runs `noema demo` as a real child process in a chosen directory, with a clean Noema environment. */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NOEMA_BIN } from '../../src/testing/cli.ts';

/** The operator's settings a developer's shell may carry; a demo test decides them itself. */
const NOEMA_VARS = /^NOEMA_(DB|PORT|TOKEN|DATA_DIR|LLM_.*|TOY_.*|MCP_.*)$/;

export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!NOEMA_VARS.test(k)) env[k] = v;
  return { ...env, ...extra };
}

export const tempDir = () => mkdtempSync(join(tmpdir(), 'noema-demo-'));

export interface DemoProcess {
  stdout(): string;
  stderr(): string;
  /** Resolves with the first stdout match of `pattern` (bounded by `timeoutMs`). */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  exited: Promise<number | null>;
  kill(signal: NodeJS.Signals): void;
}

export function startDemo(cwd: string, args: string[], env: Record<string, string> = {}): DemoProcess {
  const child = spawn(process.execPath, [NOEMA_BIN, 'demo', ...args], { cwd, env: cleanEnv(env) });
  let out = '';
  let err = '';
  const listeners = new Set<() => void>();
  child.stdout.on('data', (d) => {
    out += d;
    for (const l of listeners) l();
  });
  child.stderr.on('data', (d) => {
    err += d;
  });
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    stdout: () => out,
    stderr: () => err,
    exited,
    kill: (signal) => child.kill(signal),
    waitFor(pattern, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = out.match(pattern);
          if (!m) return;
          listeners.delete(check);
          clearTimeout(timer);
          resolve(m);
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`timed out waiting for ${pattern}; stdout=${out} stderr=${err}`));
        }, timeoutMs);
        listeners.add(check);
        check();
      });
    },
  };
}

/** Runs `noema demo <args>` to completion (bounded), returning its exit code and output. */
export async function runDemo(
  cwd: string,
  args: string[],
  env: Record<string, string> = {},
  timeoutMs = 120_000,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const p = startDemo(cwd, args, env);
  const timer = setTimeout(() => p.kill('SIGKILL'), timeoutMs);
  const code = await p.exited;
  clearTimeout(timer);
  return { code, stdout: p.stdout(), stderr: p.stderr() };
}
