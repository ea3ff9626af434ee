/**
 * The command tree answers in the user's words: groups list their commands, mistakes get a
 * did-you-mean, extra arguments are refused, and every usage mistake is one line and exit 2.
 * Not store-specific: no store is opened.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type CliResult, runCli } from '../../src/testing/cli.ts';

function assertUsageError(r: CliResult, line: string | RegExp): void {
  assert.equal(r.code, 2, r.stderr);
  const lines = r.stderr.trim().split('\n');
  assert.equal(lines.length, 1, r.stderr);
  if (typeof line === 'string') assert.equal(lines[0], line);
  else assert.match(lines[0]!, line);
  assert.equal(r.stdout, '');
}

const GROUPS: Record<string, string[]> = {
  world: ['apply', 'create', 'run', 'show', 'log'],
  agent: ['put', 'chat'],
  flow: ['import', 'run'],
  dev: ['up', 'scripted-model', 'toys', 'mcp-fixture'],
  source: ['invoke'],
};

test('a group with --help lists its commands (exit 0); named alone, the same list as a usage error (exit 2)', async () => {
  for (const [group, subcommands] of Object.entries(GROUPS)) {
    const help = await runCli([group, '--help']);
    assert.equal(help.code, 0, help.stderr);
    for (const sub of subcommands) assert.match(help.stdout, new RegExp(`^  ${sub}\\b`, 'm'), group);
    const alone = await runCli([group]);
    assert.equal(alone.code, 2);
    for (const sub of subcommands) assert.match(alone.stderr, new RegExp(`^  ${sub}\\b`, 'm'), group);
    assert.doesNotMatch(alone.stderr, /unknown command/);
  }
});

test('a mistyped command suggests the one meant', async () => {
  assertUsageError(await runCli(['wrld']), 'noema: unknown command "wrld" (did you mean world?)');
  assertUsageError(
    await runCli(['world', 'rn', 'park']),
    'noema world: unknown command "rn" (did you mean run?)',
  );
});

test('a mistyped flag names the command and suggests the flag meant', async () => {
  assertUsageError(
    await runCli(['world', 'run', 'park', '--turn', '3']),
    'noema world run: unknown flag --turn (did you mean --turns?)',
  );
  assertUsageError(
    await runCli(['serve', '--frob']),
    /^noema serve: unknown flag --frob \(see noema serve --help\)$/,
  );
});

test('extra positional arguments are refused, not ignored', async () => {
  assertUsageError(
    await runCli(['world', 'run', 'park', 'extra']),
    /^noema world run: unexpected argument "extra" \(usage: noema world run .*<slug>\)$/,
  );
  assertUsageError(await runCli(['migrate', 'now']), /^noema migrate: unexpected argument "now"/);
});

test('a missing argument or required flag names it, with an example', async () => {
  assertUsageError(
    await runCli(['world', 'run']),
    'noema world run: missing <slug> (e.g. noema world run park --turns 3)',
  );
  assertUsageError(
    await runCli(['world', 'create', 'park']),
    'noema world create: --scenario is required (e.g. noema world create park --scenario examples/park)',
  );
  assertUsageError(
    await runCli(['world', 'show', 'park', '--turn']),
    /^noema world show: --turn <n> needs a value$/,
  );
});

test("a command's help shows its arguments, defaults and environment variables", async () => {
  const serve = await runCli(['serve', '--help']);
  assert.equal(serve.code, 0);
  assert.match(serve.stdout, /--port <port>\s+port to listen on \(default: 8787, env: NOEMA_PORT\)/);
  assert.match(serve.stdout, /--db <path\|url>\s+store: [\s\S]*?\(env:\s+NOEMA_DB\)/);
  const run = await runCli(['world', 'help', 'run']);
  assert.equal(run.code, 0);
  assert.match(run.stdout, /^Usage: noema world run \[options\] <slug>/);
  assert.match(run.stdout, /--turns <n>\s+how many turns to run \(default: 1\)/);
  assert.match(run.stdout, /Example:\n {2}noema world run park --turns 3/);
});

test('--version and --help at the top', async () => {
  const v = await runCli(['--version']);
  assert.equal(v.code, 0);
  assert.match(v.stdout, /^noema \d+\.\d+\.\d+\n$/);
  const h = await runCli(['--help']);
  assert.equal(h.code, 0);
  for (const group of Object.keys(GROUPS)) assert.match(h.stdout, new RegExp(`^  ${group}\\b`, 'm'));
});
