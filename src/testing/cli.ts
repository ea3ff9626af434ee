/** Runs the real `noema` executable in a child process, for end-to-end tests of the CLI and servers. */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const NOEMA_BIN = fileURLToPath(new URL('../../bin/noema.js', import.meta.url));

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Where a child runs: its working directory, and the environment `env` is laid over (default this process's). */
export interface CliOptions {
  cwd?: string;
  baseEnv?: NodeJS.ProcessEnv;
}

function spawnNoema(
  args: string[],
  env: NodeJS.ProcessEnv,
  options: CliOptions,
): ChildProcessWithoutNullStreams {
  return spawn(process.execPath, [NOEMA_BIN, ...args], {
    env: { ...(options.baseEnv ?? process.env), ...env },
    ...(options.cwd ? { cwd: options.cwd } : {}),
  });
}

/** Runs `noema <args>` to completion. */
export function runCli(
  args: string[],
  env: NodeJS.ProcessEnv = {},
  timeoutMs = 30_000,
  options: CliOptions = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawnNoema(args, env, options);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`noema ${args.join(' ')} timed out; stdout=${stdout} stderr=${stderr}`));
    }, timeoutMs);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export interface RunningCli {
  child: ChildProcessWithoutNullStreams;
  /** All stdout so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves with the first stdout match of `pattern`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
}

/** Starts a long-running `noema <args>` (a server) and lets the test wait for its output. */
export function startCli(args: string[], env: NodeJS.ProcessEnv = {}, options: CliOptions = {}): RunningCli {
  const child = spawnNoema(args, env, options);
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
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor(pattern, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const m = out.match(pattern);
          if (m) {
            listeners.delete(check);
            clearTimeout(timer);
            resolve(m);
          }
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(new Error(`timed out waiting for ${pattern}; stdout=${out} stderr=${err}`));
        }, timeoutMs);
        listeners.add(check);
        void exited.then(() => {
          check();
          if (listeners.has(check)) {
            listeners.delete(check);
            clearTimeout(timer);
            reject(new Error(`process exited before ${pattern}; stdout=${out} stderr=${err}`));
          }
        });
        check();
      });
    },
  };
}
