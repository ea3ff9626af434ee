/**
 * On the command line, an error's hint names the CLI command to type next (the runtimes' own hints
 * name API calls, for HTTP and MCP clients). The mapping is the CLI's, not the store's: one store.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { runCli } from '../../src/testing/cli.ts';
import { testTempDir } from '../../src/testing/temp-dir.ts';

test('an unknown world, agent or flowchart is answered with the command that makes one', async () => {
  const env = { NOEMA_DB: join(testTempDir('noema-hints-'), 'n.db') };
  const world = await runCli(['world', 'run', 'x'], env);
  assert.equal(world.code, 1);
  assert.equal(
    world.stderr,
    'noema: no world "x" — create it with: npx noema world create x --scenario <dir>\n',
  );
  const agent = await runCli(['agent', 'chat', 'nobody'], env);
  assert.equal(agent.code, 1);
  assert.equal(
    agent.stderr,
    'noema: no agent definition labelled "nobody" — store one with: npx noema agent put <agent.json>\n',
  );
  const flow = await runCli(['flow', 'run', 'no-such-chart'], env);
  assert.equal(flow.code, 1);
  assert.match(flow.stderr, /^noema: no flowchart "no-such-chart" — import one with: npx noema flow import /);
  for (const r of [world, agent, flow]) assert.doesNotMatch(r.stderr, /create_world|POST \/|GET \//);
});
