/** Runs `noema demo` as a real child process in a chosen directory, with a clean Noema environment. */
import { type CliResult, type RunningCli, runCli, startCli } from '../../src/testing/cli.ts';
import { testTempDir } from '../../src/testing/temp-dir.ts';

/** The operator's settings a developer's shell may carry; a demo test decides them itself. */
const NOEMA_VARS = /^NOEMA_(DB|PORT|TOKEN|DATA_DIR|LLM_.*|TOY_.*|MCP_.*)$/;

export function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!NOEMA_VARS.test(k)) env[k] = v;
  return { ...env, ...extra };
}

export const tempDir = () => testTempDir('noema-demo-');

/** `noema demo <args>` as a long-running child in `cwd`, with only the settings the test gives it. */
export function startDemo(cwd: string, args: string[], env: Record<string, string> = {}): RunningCli {
  return startCli(['demo', ...args], env, { cwd, baseEnv: cleanEnv() });
}

/** Runs `noema demo <args>` to completion (bounded), returning its exit code and output. */
export function runDemo(
  cwd: string,
  args: string[],
  env: Record<string, string> = {},
  timeoutMs = 120_000,
): Promise<CliResult> {
  return runCli(['demo', ...args], env, timeoutMs, { cwd, baseEnv: cleanEnv() });
}
