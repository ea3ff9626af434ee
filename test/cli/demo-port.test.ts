/**
 * A second `noema demo` while one serves says at once that the port is in use, naming the setting
 * the port came from, and does no work; the setting named is `--port` unless NOEMA_PORT was set.
 * The check comes before any store opens: one store.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { portSetting } from '../../src/surfaces/cli/flags.ts';
import { runCli, startCli } from '../../src/testing/cli.ts';
import { testTempDir } from '../../src/testing/temp-dir.ts';
import { cleanEnv } from '../demo/helpers.ts';

test('a second demo on a port one serves on fails at once, names --port, and runs nothing', async () => {
  const first = startCli(
    ['demo', '--turns', '1', '--port', '0'],
    {},
    {
      cwd: testTempDir('noema-demo-port-'),
      baseEnv: cleanEnv(),
    },
  );
  try {
    const [, port] = await first.waitFor(/serving on http:\/\/127\.0\.0\.1:(\d+)/, 120_000);
    const dir = testTempDir('noema-demo-port-');
    const options = { cwd: dir, baseEnv: cleanEnv() };
    const started = performance.now();
    const second = await runCli(['demo', '--turns', '1', '--port', port!], {}, 60_000, options);
    const seconds = (performance.now() - started) / 1000;
    assert.equal(second.code, 2, second.stderr + second.stdout);
    assert.equal(second.stdout, '', 'no turn, session or flowchart ran');
    assert.equal(
      second.stderr,
      `noema: --port is invalid: port ${port} is already in use — is another noema demo or serve running? pass --port <n> for another port (--port 0: any free port)\n`,
    );
    assert.equal(existsSync(join(dir, '.noema', 'demo.db')), false, 'no demo store was created');
    assert.ok(seconds < 10, `answered at once (${seconds.toFixed(1)} s)`);

    const fromEnv = await runCli(['demo', '--turns', '1'], { NOEMA_PORT: port! }, 60_000, options);
    assert.equal(fromEnv.code, 2);
    assert.match(
      fromEnv.stderr,
      /^noema: NOEMA_PORT is invalid: port \d+ is already in use — .*set NOEMA_PORT to another port/,
    );
  } finally {
    first.child.kill('SIGTERM');
    await first.exited;
  }
});

test('a port-in-use error names --port unless NOEMA_PORT set the port', () => {
  assert.equal(portSetting({}, {}), '--port');
  assert.equal(portSetting({ port: '8080' }, { NOEMA_PORT: '9090' }), '--port');
  assert.equal(portSetting({}, { NOEMA_PORT: '9090' }), 'NOEMA_PORT');
});
