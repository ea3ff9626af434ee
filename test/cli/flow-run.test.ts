// `noema flow run` end to end: a real child process runs the example flowchart against the scripted
// model, streaming one line per node update and artifact; failures exit 1 with one line.
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startScriptedModel } from '../../src/dev/scripted-model/index.ts';
import { getFlowchart, getGraph, listFlowcharts, saveGraph } from '../../src/runtimes/flow/index.ts';
import { runCli } from '../../src/testing/cli.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { EXAMPLE, EXAMPLE_SCRIPT, readJson } from '../../src/testing/flow-kit.ts';
import { testTempDir } from '../../src/testing/temp-dir.ts';

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

  test('running a file again reuses the flowchart imported from identical content, also from two processes at once', async () =>
    factory.withStore(async ({ store, url }) => {
      const model = await startScriptedModel({ script: readJson(EXAMPLE_SCRIPT) });
      try {
        const env = { NOEMA_DB: url, NOEMA_LLM_BASE_URL: model.url, NOEMA_LLM_MODEL: 'scripted' };
        const file = fileURLToPath(EXAMPLE);
        const idOf = (stdout: string) => /flowchart (\S+) run /.exec(stdout)?.[1];
        const runs = await Promise.all([0, 1].map(() => runCli(['flow', 'run', file], env)));
        for (const r of runs) assert.equal(r.code, 0, r.stderr + r.stdout);
        const id = idOf(runs[0]!.stdout);
        assert.equal(idOf(runs[1]!.stdout), id, 'both processes ran one flowchart');
        const again = await runCli(['flow', 'run', file], env);
        assert.equal(again.code, 0, again.stderr);
        assert.match(
          again.stdout.split('\n')[0]!,
          /^flowchart \S+ was imported from .*'s content; running it$/,
        );
        assert.equal(idOf(again.stdout), id);
        assert.equal((await listFlowcharts(store)).count, 1);

        // Other content is another flowchart.
        const changed = join(testTempDir('noema-flow-run-'), 'renamed.json');
        writeFileSync(changed, JSON.stringify({ ...readJson(EXAMPLE), name: 'Support triage, renamed' }));
        const other = await runCli(['flow', 'run', changed], env);
        assert.equal(other.code, 0, other.stderr);
        assert.notEqual(idOf(other.stdout), id);

        // An edited flowchart is no longer that content: the file is imported afresh.
        const graph = await getGraph(store, id!);
        await saveGraph(store, id!, { nodes: graph.nodes, edges: graph.edges });
        const afterEdit = await runCli(['flow', 'run', file], env);
        assert.equal(afterEdit.code, 0, afterEdit.stderr);
        assert.match(afterEdit.stdout, /^imported /);
        assert.notEqual(idOf(afterEdit.stdout), id);
        assert.equal((await listFlowcharts(store)).count, 3);
      } finally {
        await model.close();
      }
    }));
});
