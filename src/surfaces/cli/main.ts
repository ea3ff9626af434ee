/** The `noema` CLI: selects a command by its words, parses flags strictly, maps errors to exit codes. */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { type ErrorCode, isNoemaError } from '../../core/errors.ts';
import { type Command, type CommandIO, EXIT_FAILED, EXIT_OK, EXIT_USAGE } from './command.ts';
import { commands } from './commands/index.ts';

const USAGE_CODES: ReadonlySet<ErrorCode> = new Set([
  'CONFIG_INVALID',
  'STORE_UNAVAILABLE',
  'SCHEMA_TOO_NEW',
  'USAGE',
]);

function helpText(): string {
  const width = Math.max(...commands.map((c) => c.path.join(' ').length + (c.args ? c.args.length + 1 : 0)));
  const lines = commands.map((c) => {
    const name = [c.path.join(' '), c.args].filter(Boolean).join(' ');
    return `  ${name.padEnd(width)}  ${c.summary}`;
  });
  return [
    'usage: noema <command> [flags]',
    '',
    'commands:',
    ...lines,
    '',
    'Run `noema <command> --help` for its flags.',
  ].join('\n');
}

function commandHelp(c: Command): string {
  const flags = Object.entries(c.flags).map(
    ([name, f]) => `  --${name}${f.type === 'string' ? ' <value>' : ''}  ${f.description}`,
  );
  return [
    `usage: noema ${c.path.join(' ')}${c.args ? ` ${c.args}` : ''} [flags]`,
    '',
    c.summary,
    '',
    'flags:',
    ...flags,
    '  --help  show this help',
  ].join('\n');
}

function findCommand(argv: string[]): { command: Command; rest: string[] } | null {
  let best: { command: Command; rest: string[] } | null = null;
  for (const command of commands) {
    const n = command.path.length;
    if (command.path.every((w, i) => argv[i] === w) && (!best || n > best.command.path.length)) {
      best = { command, rest: argv.slice(n) };
    }
  }
  return best;
}

export async function main(argv: string[], io: CommandIO): Promise<number> {
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    io.out(helpText());
    return argv.length === 0 ? EXIT_USAGE : EXIT_OK;
  }
  if (argv[0] === '--version' || argv[0] === 'version') {
    const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
      version: string;
    };
    io.out(`noema ${pkg.version}`);
    return EXIT_OK;
  }
  const found = findCommand(argv);
  if (!found) {
    io.err(
      `noema: unknown command "${argv.filter((a) => !a.startsWith('-')).join(' ')}". Run \`noema --help\`.`,
    );
    return EXIT_USAGE;
  }
  const { command, rest } = found;
  if (rest.includes('--help') || rest.includes('-h')) {
    io.out(commandHelp(command));
    return EXIT_OK;
  }
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: rest, options: command.flags, strict: true, allowPositionals: true });
  } catch (err) {
    io.err(`noema ${command.path.join(' ')}: ${(err as Error).message.split('\n')[0]}`);
    return EXIT_USAGE;
  }
  try {
    return await command.run({
      flags: parsed.values as Record<string, string | boolean | string[] | undefined>,
      positionals: parsed.positionals,
      io,
    });
  } catch (err) {
    if (isNoemaError(err)) {
      io.err(`noema: ${err.message}${err.hint ? ` (${err.hint})` : ''}`);
      return USAGE_CODES.has(err.code) ? EXIT_USAGE : EXIT_FAILED;
    }
    io.err(`noema: ${(err as Error).stack ?? String(err)}`);
    return EXIT_FAILED;
  }
}
