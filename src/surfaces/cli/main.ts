/**
 * The `noema` CLI: builds the command tree (commander) from the declarations in `commands/`,
 * answers usage mistakes in one line (`unknown flag --turn (did you mean --turns?)`, exit 2), and
 * maps errors to exit codes and CLI hints. Only the commands under the first word typed are declared
 * (all of them for help and mistakes), and each loads its implementation when it runs.
 */
import { readFileSync } from 'node:fs';
import { Command as Commander, type CommanderError, Option } from 'commander';
import { type ErrorCode, isNoemaError } from '../../core/errors.ts';
import { type Command, type CommandIO, EXIT_FAILED, EXIT_OK, EXIT_USAGE, GROUPS } from './command.ts';
import { commandsFor } from './commands/index.ts';
import { cliHint } from './hints.ts';

const USAGE_CODES: ReadonlySet<ErrorCode> = new Set([
  'CONFIG_INVALID',
  'STORE_UNAVAILABLE',
  'SCHEMA_TOO_NEW',
  'USAGE',
]);

/** Commander's way out (help shown, a usage mistake), caught by `main`. */
class UsageExit {
  readonly error: CommanderError;
  readonly command: Commander;
  constructor(error: CommanderError, command: Commander) {
    this.error = error;
    this.command = command;
  }
}

const trimNewline = (s: string) => s.replace(/\n$/, '');

function configure(c: Commander, io: CommandIO): Commander {
  return c
    .exitOverride((error) => {
      throw new UsageExit(error, c);
    })
    .configureOutput({
      writeOut: (s) => io.out(trimNewline(s)),
      writeErr: (s) => io.err(trimNewline(s)),
      // Usage mistakes are reported by `main` in one line of its own.
      outputError: () => {},
    })
    .helpOption('-h, --help', 'show help')
    .showSuggestionAfterError(true);
}

function addFlags(c: Commander, command: Command): void {
  for (const [name, f] of Object.entries(command.flags)) {
    const value = f.type === 'string' ? ` <${f.value ?? 'value'}>` : '';
    const option = new Option(`${f.short ? `-${f.short}, ` : ''}--${name}${value}`, f.description);
    if (f.default !== undefined) option.default(f.default, f.default);
    if (f.env !== undefined) option.env(f.env);
    if (f.required) option.makeOptionMandatory();
    c.addOption(option);
  }
}

/**
 * The flags the user typed, by declared name: defaults and environment variables are shown in help
 * but applied by the command and configuration (so an error names the setting that was used).
 */
function typedFlags(c: Commander, command: Command): Record<string, string | boolean | undefined> {
  const out: Record<string, string | boolean | undefined> = {};
  for (const name of Object.keys(command.flags)) {
    const option = c.options.find((o) => o.long === `--${name}`);
    if (!option) continue;
    const key = option.attributeName();
    if (c.getOptionValueSource(key) !== 'cli') continue;
    out[name] = option.negate ? true : (c.getOptionValue(key) as string | boolean);
  }
  return out;
}

function groupOf(parent: Commander, word: string, io: CommandIO): Commander {
  const found = parent.commands.find((c) => c.name() === word);
  if (found) return found;
  return configure(parent.command(word), io).description(GROUPS[word] ?? '');
}

function buildProgram(io: CommandIO, exit: { code: number }, commands: readonly Command[]): Commander {
  const program = configure(new Commander('noema'), io)
    .description('Durable, observable agent cognition: serve, run worlds, agents and flowcharts')
    .usage('<command> [flags]')
    .version(version(), '-V, --version', 'print the version')
    .helpCommand('help [command]', 'show help for a command')
    .addHelpText('after', '\nRun `noema <command> --help` for its flags.');
  configure(program.command('version', { hidden: true }), io).action(() => io.out(version()));
  for (const command of commands) {
    let parent = program;
    for (const word of command.path.slice(0, -1)) parent = groupOf(parent, word, io);
    const c = configure(parent.command(command.path.at(-1)!), io).description(command.summary);
    for (const a of command.args ?? []) c.argument(a.required ? `<${a.name}>` : `[${a.name}]`, a.description);
    addFlags(c, command);
    if (command.example) c.addHelpText('after', `\nExample:\n  ${command.example}`);
    c.action(async () => {
      exit.code = await command.run({
        flags: typedFlags(c, command),
        positionals: (c.processedArgs as Array<string | undefined>).filter((a) => a !== undefined),
        io,
      });
    });
  }
  return program;
}

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return `noema ${pkg.version}`;
}

function commandLine(c: Commander): string {
  const words: string[] = [];
  for (let at: Commander | null = c; at; at = at.parent) words.unshift(at.name());
  return words.join(' ');
}

/** Commander's message in the CLI's words: one line, the command first, a suggestion in brackets. */
function usageLine({ error, command }: UsageExit, commands: readonly Command[]): string {
  const [first = '', ...rest] = error.message.replace(/^error: /, '').split('\n');
  const suggestion = /\(Did you mean (.+)\?\)/.exec(rest.join(' '))?.[1];
  const usage = `${commandLine(command)} ${command.usage()}`;
  const example = commands.find(
    (c) => c.path.join(' ') === commandLine(command).replace(/^noema /, ''),
  )?.example;
  let text: string;
  switch (error.code) {
    case 'commander.unknownOption':
      text = `unknown flag ${/'(.+)'/.exec(first)?.[1] ?? first}`;
      break;
    case 'commander.unknownCommand':
      text = `unknown command "${/'(.+)'/.exec(first)?.[1] ?? first}"`;
      break;
    case 'commander.missingArgument':
      text = `missing <${/'(.+)'/.exec(first)?.[1] ?? '?'}> (${example ? `e.g. ${example}` : `usage: ${usage}`})`;
      break;
    case 'commander.excessArguments': {
      const extra = command.args.slice(command.registeredArguments.length);
      text = `unexpected argument${extra.length > 1 ? 's' : ''} ${extra.map((a) => `"${a}"`).join(' ')} (usage: ${usage})`;
      break;
    }
    case 'commander.missingMandatoryOptionValue':
      text = `${/'(--[\w-]+)/.exec(first)?.[1] ?? first} is required (${example ? `e.g. ${example}` : `usage: ${usage}`})`;
      break;
    case 'commander.optionMissingArgument':
      text = `${/'(.+)'/.exec(first)?.[1] ?? first} needs a value`;
      break;
    default:
      text = first;
  }
  if (suggestion) text += ` (did you mean ${suggestion}?)`;
  else if (error.code === 'commander.unknownCommand' || error.code === 'commander.unknownOption')
    text += ` (see ${commandLine(command)} --help)`;
  return `${commandLine(command)}: ${text}`;
}

export async function main(argv: string[], io: CommandIO): Promise<number> {
  const exit = { code: EXIT_OK };
  const commands = await commandsFor(argv);
  const program = buildProgram(io, exit, commands);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return exit.code;
  } catch (err) {
    if (err instanceof UsageExit) {
      const code = err.error.code;
      if (code === 'commander.helpDisplayed' || code === 'commander.version') return EXIT_OK;
      // Help asked for (`noema help world`), or a group named without its command (`noema world`):
      // its help was shown, the second as a usage error.
      if (code === 'commander.help') return err.error.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
      io.err(usageLine(err, commands));
      return EXIT_USAGE;
    }
    if (isNoemaError(err)) {
      const hint = cliHint(err) ?? err.hint;
      io.err(`noema: ${err.message}${hint ? ` — ${hint}` : ''}`);
      return USAGE_CODES.has(err.code) ? EXIT_USAGE : EXIT_FAILED;
    }
    io.err(`noema: ${(err as Error).stack ?? String(err)}`);
    return EXIT_FAILED;
  }
}
