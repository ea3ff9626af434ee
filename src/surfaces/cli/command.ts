/**
 * The shape of a CLI command: a path of words, its arguments and typed flags, and a run function.
 * `main.ts` builds the command tree (commander) from these declarations.
 */

export type FlagSpec = {
  type: 'string' | 'boolean';
  short?: string;
  description: string;
  /** The value's placeholder in help, e.g. `n` for `--turns <n>` (default `value`). */
  value?: string;
  /** The default, as shown in help; the command applies it (an unset flag reaches `run` as undefined). */
  default?: string;
  /** The command cannot run without it (a usage error names it). */
  required?: boolean;
  /** The environment variable the setting falls back to, as shown in help (configuration reads it). */
  env?: string;
};

/** A positional argument: `<name>` required, `[name]` optional. */
export type ArgSpec = {
  name: string;
  required: boolean;
  description: string;
};

export interface CommandIO {
  out(line: string): void;
  err(line: string): void;
}

export interface Command {
  /** Words that select the command, e.g. `['dev', 'toys']`. */
  path: readonly string[];
  summary: string;
  /** Positional arguments, in order; more than these is a usage error. */
  args?: readonly ArgSpec[];
  flags: Record<string, FlagSpec>;
  /** A complete command line, shown with usage errors, e.g. `noema world run park --turns 3`. */
  example?: string;
  /**
   * Runs the command; resolves to the process exit code. Long-running commands (servers)
   * resolve only when they have shut down.
   */
  run(input: {
    flags: Record<string, string | boolean | undefined>;
    positionals: string[];
    io: CommandIO;
  }): Promise<number>;
}

/** The groups of commands (`noema world …`), for help: each word's summary. */
export const GROUPS: Readonly<Record<string, string>> = {
  world: 'Author worlds from scenario bundles, run turns, read what happened',
  agent: 'Store agent definitions and talk to agents',
  flow: 'Import and run flowcharts',
  source: 'Try response sources',
  llm: 'Check LLM endpoints and their provider profiles',
  dev: 'Local stand-ins for development: scripted model, toy services, MCP fixture',
};

/** The store flag most commands take. */
export const DB_FLAG: FlagSpec = {
  type: 'string',
  value: 'path|url',
  description: 'store: a SQLite file path or a postgres:// URL',
  env: 'NOEMA_DB',
};

/** Exit codes: 0 ok, 1 the operation failed, 2 usage or configuration error. */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;
