/** The shape of a CLI command: a path of words, typed flags (node:util parseArgs), and a run function. */

export type FlagSpec = { type: 'string' | 'boolean'; short?: string; description: string; multiple?: boolean };

export interface CommandIO {
  out(line: string): void;
  err(line: string): void;
}

export interface Command {
  /** Words that select the command, e.g. `['dev', 'toys']`. */
  path: readonly string[];
  summary: string;
  /** Positional arguments, for help text, e.g. `<source.json>`. */
  args?: string;
  flags: Record<string, FlagSpec>;
  /**
   * Runs the command; resolves to the process exit code. Long-running commands (servers)
   * resolve only when they have shut down.
   */
  run(input: { flags: Record<string, string | boolean | string[] | undefined>; positionals: string[]; io: CommandIO }): Promise<number>;
}

/** Exit codes: 0 ok, 1 the operation failed, 2 usage or configuration error. */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;
