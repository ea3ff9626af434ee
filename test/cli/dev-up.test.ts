/**
 * `noema dev up` end to end: a real process starts the scripted model, the toys and the MCP fixture
 * and writes `<data dir>/dev.env`; commands in other processes, with no model or toy variables set,
 * run a park world turn from it; the real environment wins over the file; SIGINT stops everything
 * and removes the file. The settings are the store's neighbours, not the store's: one store.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli, startCli } from '../../src/testing/cli.ts';
import { testTempDir } from '../../src/testing/temp-dir.ts';

const PARK = join(import.meta.dirname, '../../examples/park');

/** This process's environment without any setting dev up provides. */
function bareEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const k of Object.keys(env))
    if (/^NOEMA_(LLM|TOY|MCP)_/.test(k) || k === 'NOEMA_DATA_DIR') delete env[k];
  return env;
}

test('dev up serves what a world turn needs through dev.env, and removes it on SIGINT', async () => {
  const dir = testTempDir('noema-dev-up-');
  const baseEnv = bareEnv();
  const env = { NOEMA_DB: join(dir, 'n.db') };
  const up = startCli(['dev', 'up'], env, { baseEnv });
  try {
    await up.waitFor(/Ctrl-C to stop/);
    const file = join(dir, 'dev.env');
    const settings = Object.fromEntries(
      readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((l) => l.split(/=(.*)/s).slice(0, 2) as [string, string]),
    );
    for (const key of [
      'NOEMA_LLM_BASE_URL',
      'NOEMA_LLM_MODEL',
      'NOEMA_TOY_WEATHER_URL',
      'NOEMA_TOY_PA_URL',
      'NOEMA_TOY_PHONE_URL',
      'NOEMA_TOY_VENDING_URL',
      'NOEMA_TOY_FOUNTAIN_URL',
      'NOEMA_MCP_FIXTURE_URL',
    ]) {
      assert.match(settings[key] ?? '', key === 'NOEMA_LLM_MODEL' ? /./ : /^http:\/\/127\.0\.0\.1:\d+/, key);
      assert.match(up.stdout(), new RegExp(`^${key}=`, 'm'), `${key} is printed`);
    }

    const cli = (args: string[], extra: NodeJS.ProcessEnv = {}) =>
      runCli(args, { ...env, ...extra }, 60_000, { baseEnv });
    const applied = await cli(['world', 'apply', PARK]);
    assert.equal(applied.code, 0, applied.stderr);
    const created = await cli(['world', 'create', 'park', '--scenario', applied.stdout.trim()]);
    assert.equal(created.code, 0, created.stderr);
    // The operator's own setting wins over the file: a dead model endpoint fails the turn.
    const overridden = await cli(['world', 'run', 'park', '--turns', '1'], {
      NOEMA_LLM_BASE_URL: 'http://127.0.0.1:1/v1',
    });
    assert.equal(overridden.code, 1, overridden.stdout + overridden.stderr);
    const run = await cli(['world', 'run', 'park', '--turns', '1']);
    assert.equal(run.code, 0, run.stderr + run.stdout);
    assert.match(run.stdout, /tool buy_candy/);
    assert.match(run.stdout, /turn 1 committed: 2 patch\(es\)/);

    up.child.kill('SIGINT');
    assert.equal(await up.exited, 0, up.stderr());
    assert.match(up.stdout(), /received SIGINT, shutting down/);
    assert.equal(existsSync(file), false, 'dev.env is removed');
    await assert.rejects(fetch(settings.NOEMA_TOY_WEATHER_URL!), 'the toys are stopped');
    await assert.rejects(fetch(`${settings.NOEMA_LLM_BASE_URL}/models`), 'the model is stopped');
  } finally {
    up.child.kill('SIGKILL');
  }
});

test('dev up --script serves that script as the model', async () => {
  const dir = testTempDir('noema-dev-up-');
  const up = startCli(
    ['dev', 'up', '--script', join(PARK, 'model-script.json')],
    { NOEMA_DATA_DIR: dir },
    {
      baseEnv: bareEnv(),
    },
  );
  try {
    await up.waitFor(/Ctrl-C to stop/);
    const text = readFileSync(join(dir, 'dev.env'), 'utf8');
    assert.match(text, /^NOEMA_LLM_BASE_URL=http:\/\/127\.0\.0\.1:\d+\/v1$/m);
    assert.match(text, /^NOEMA_LLM_MODEL=scripted$/m);
    up.child.kill('SIGTERM');
    assert.equal(await up.exited, 0);
    assert.equal(existsSync(join(dir, 'dev.env')), false);
  } finally {
    up.child.kill('SIGKILL');
  }
});

test('a dev.env left by a dev up that was killed is ignored', async () => {
  const dir = testTempDir('noema-dev-up-');
  const baseEnv = bareEnv();
  const env = { NOEMA_DB: join(dir, 'n.db') };
  const up = startCli(['dev', 'up'], env, { baseEnv });
  await up.waitFor(/Ctrl-C to stop/);
  const weather = join(PARK, 'sources/weather.json');
  const invoke = () =>
    runCli(['source', 'invoke', weather, '--request', '{"turn":1}'], env, 60_000, { baseEnv });
  const served = await invoke();
  assert.equal(served.code, 0, served.stderr + served.stdout);
  up.child.kill('SIGKILL');
  await up.exited;
  assert.equal(existsSync(join(dir, 'dev.env')), true, 'a killed process leaves the file');
  const stale = await invoke();
  assert.equal(stale.code, 1);
  const record = JSON.parse(stale.stdout) as { failure_class: string };
  assert.equal(record.failure_class, 'not_configured', 'the dead services are not called');
});
