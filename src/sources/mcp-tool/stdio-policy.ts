/**
 * The operator's policy for stdio MCP servers: which whole command lines may be started
 * (`NOEMA_MCP_STDIO_COMMANDS`) and which environment variables a child may receive
 * (`NOEMA_MCP_ENV_PASSTHROUGH`). A stored document only asks; the operator's environment decides.
 */
import { SourceFailure } from '../failure.ts';

type Env = Readonly<Record<string, string | undefined>>;

export const STDIO_ALLOW_ENV = 'NOEMA_MCP_STDIO_COMMANDS';
export const ENV_PASSTHROUGH_ENV = 'NOEMA_MCP_ENV_PASSTHROUGH';

export interface StdioLaunch {
  command: string;
  args?: string[];
  cwd?: string;
}

function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * The launch as an allowlist entry: `[cwd=<dir> ]<command>[ <arg>…]`, tokens separated by one
 * space. Arguments (or a cwd) holding whitespace or commas cannot be allowlisted.
 */
export function commandLine(t: StdioLaunch): string {
  return [...(t.cwd ? [`cwd=${t.cwd}`] : []), t.command, ...(t.args ?? [])].join(' ');
}

/** Refuses a launch unless its whole command line (cwd, command, args) is an allowlist entry. */
export function assertStdioAllowed(t: StdioLaunch, env: Env): void {
  const line = commandLine(t);
  const allowed = list(env[STDIO_ALLOW_ENV]).map((entry) => entry.split(/\s+/).join(' '));
  if (allowed.includes(line)) return;
  throw new SourceFailure(
    'not_configured',
    `MCP stdio command line "${line}" is not allowed by ${STDIO_ALLOW_ENV}`,
    {
      details: { variable: STDIO_ALLOW_ENV, command: t.command, command_line: line },
      hint: `add the exact command line "${line}" to ${STDIO_ALLOW_ENV} (comma-separated entries: command and arguments separated by spaces)`,
    },
  );
}

/** The variables a child receives beyond the SDK defaults: only those the operator listed. */
export function passthroughEnv(names: readonly string[], env: Env): Record<string, string> {
  const allowed = new Set(list(env[ENV_PASSTHROUGH_ENV]));
  const refused = names.filter((n) => !allowed.has(n));
  if (refused.length > 0) {
    throw new SourceFailure(
      'not_configured',
      `MCP env_passthrough names variables not allowed by ${ENV_PASSTHROUGH_ENV}: ${refused.join(', ')}`,
      {
        details: { variable: ENV_PASSTHROUGH_ENV, refused },
        hint: `list the variables a stdio MCP server may receive in ${ENV_PASSTHROUGH_ENV} (comma-separated)`,
      },
    );
  }
  const out: Record<string, string> = {};
  for (const name of names) {
    const v = env[name];
    if (v !== undefined) out[name] = v;
  }
  return out;
}
