/** `noema world apply|create|run|show|log` as a user runs them: a real child process per command. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadScript, startScriptedModel } from '../../src/dev/scripted-model/index.ts';
import { startToyServices } from '../../src/dev/toys/index.ts';
import { runCli } from '../../src/testing/cli.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { PARK_BUNDLE, PARK_SCRIPT } from '../../src/testing/world-kit.ts';

describeEachStore('noema world CLI', (factory) => {
  test('apply, create, run with progress, show a past turn, log; a failed attempt exits 1 with its id', async () => {
    await factory.withStore(async ({ url }) => {
      const model = await startScriptedModel({ script: loadScript(PARK_SCRIPT) });
      const toys = await startToyServices();
      const env = { NOEMA_DB: url, ...toys.env, NOEMA_LLM_BASE_URL: model.url, NOEMA_LLM_MODEL: 'scripted' };
      try {
        const applied = await runCli(['world', 'apply', PARK_BUNDLE], env);
        assert.equal(applied.code, 0, applied.stderr);
        const hash = applied.stdout.trim();
        assert.match(hash, /^[0-9a-f]{64}$/);
        const again = await runCli(['world', 'apply', PARK_BUNDLE], env);
        assert.equal(again.stdout.trim(), hash, 'applying twice is idempotent');

        const created = await runCli(['world', 'create', 'park', '--scenario', hash], env);
        assert.equal(created.code, 0, created.stderr);
        const fromDir = await runCli(['world', 'create', 'park2', '--scenario', PARK_BUNDLE], env);
        assert.match(fromDir.stdout, new RegExp(hash));

        const run = await runCli(['world', 'run', 'park', '--turns', '2'], env);
        assert.equal(run.code, 0, run.stderr);
        assert.match(run.stdout, /bob: thinking/);
        assert.match(run.stdout, /tool buy_candy/);
        assert.match(run.stdout, /ant: The ant reaches the crumb/);
        assert.match(run.stdout, /turn 2 committed: 2 patch\(es\)/);

        const shown = await runCli(['world', 'show', 'park', '--turn', '1'], env);
        assert.equal(shown.code, 0, shown.stderr);
        const w = JSON.parse(shown.stdout) as { turn: number; entities: Record<string, { state: string }> };
        assert.equal(w.turn, 1);
        assert.equal(w.entities.vending_machine?.state, 'empty');

        const log = await runCli(['world', 'log', 'park'], env);
        assert.match(log.stdout, /turn 1 committed attempt/);
        assert.match(log.stdout, /model_elected_tool buy_candy succeeded/);

        const down = await runCli(['world', 'run', 'park2'], {
          ...env,
          NOEMA_LLM_BASE_URL: 'http://127.0.0.1:9/v1',
        });
        assert.equal(down.code, 1);
        assert.match(down.stderr, /turn 1 failed: SOURCE_FAILED/);
        assert.match(down.stderr, /attempt [0-9a-f-]{36}/);

        const usage = await runCli(['world', 'run'], env);
        assert.equal(usage.code, 2);
        const unknown = await runCli(['world', 'show', 'nowhere'], env);
        assert.equal(unknown.code, 1);
        assert.match(unknown.stderr, /UNKNOWN_WORLD|no world/);
      } finally {
        await model.close();
        await toys.close();
      }
    });
  });
});
