// `noema flow run` end to end: a real child process runs the example flowchart against the scripted
// model, streaming one line per node update and artifact; failures exit 1 with one line.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startScriptedModel } from '../../src/dev/scripted-model/index.ts';
import { getFlowchart } from '../../src/runtimes/flow/index.ts';
import { runCli } from '../../src/testing/cli.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { EXAMPLE, EXAMPLE_SCRIPT, readJson } from '../../src/testing/flow-kit.ts';

describeEachStore('noema flow run', (factory) => {
  test('runs a flowchart file, streaming node updates, and runs it again by id', async () =>
    factory.withStore(async ({ store, url }) => {
      const model = await startScriptedModel({ script: readJson(EXAMPLE_SCRIPT) });
      try {
        const env = { NOEMA_DB: url, NOEMA_LLM_BASE_URL: model.url, NOEMA_LLM_MODEL: 'scripted' };
        const r = await runCli(['flow', 'run', fileURLToPath(EXAMPLE), '--input', '{"message":"jam"}'], env);
        assert.equal(r.code, 0, r.stderr + r.stdout);
        const lines = r.stdout.trim().split('\n');
        const id = /imported .* as flowchart (\S+)/.exec(lines[0]!)![1]!;
        assert.equal((await getFlowchart(store, id)).name, 'Support triage');
        assert.ok(lines.some((l) => /^\[1\] start \(start\) running$/.test(l)));
        assert.ok(lines.some((l) => /^\[5\] plan \(plan\) succeeded \d+ms$/.test(l)));
        assert.ok(lines.some((l) => /^ {4}artifact \d+ decision$/.test(l)));
        assert.equal(JSON.parse(lines.at(-1)!).status, 'completed');

        const again = await runCli(['flow', 'run', id, '--json'], env);
        assert.equal(again.code, 0, again.stderr);
        const events = again.stdout
          .trim()
          .split('\n')
          .slice(1, -1)
          .map((l) => JSON.parse(l) as { event: string });
        assert.ok(events.some((e) => e.event === 'flowchart.run.updated'));
        assert.ok(events.some((e) => e.event === 'flowchart:node_artifact:persisted'));

        const missing = await runCli(['flow', 'run', 'no-such-chart'], env);
        assert.equal(missing.code, 1);
        assert.match(missing.stderr.trim(), /^noema: no flowchart "no-such-chart"/);
        const badInput = await runCli(['flow', 'run', id, '--input', '{oops'], env);
        assert.equal(badInput.code, 2);
      } finally {
        await model.close();
      }
    }));
});
