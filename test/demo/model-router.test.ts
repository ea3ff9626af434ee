// The demo's model router: one endpoint for the served runtimes, each request answered by the
// script of the part that sent it (flowchart by model name, world by its turn header, else agent).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startScriptedModel } from '../../src/dev/scripted-model/index.ts';
import { startModelRouter } from '../../src/surfaces/cli/demo/model-router.ts';

test('the router sends flowchart, world and agent requests to their own scripted model, streams intact', async () => {
  const model = (text: string) => startScriptedModel({ script: { rules: [], default: { text } } });
  const [world, agent, flow] = await Promise.all([
    model('from the park'),
    model('from the agent'),
    model('from the flowchart'),
  ]);
  const router = await startModelRouter({
    world: world.url,
    agent: agent.url,
    flow: flow.url,
    flowModel: 'scripted-flow',
  });
  try {
    const ask = async (modelName: string, headers: Record<string, string> = {}) => {
      const r = await fetch(`${router.url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ model: modelName, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
      });
      assert.equal(r.status, 200);
      assert.match(r.headers.get('content-type') ?? '', /text\/event-stream/);
      const text = await r.text();
      assert.match(text, /data: \[DONE\]/);
      return [...text.matchAll(/"content":"([^"]*)"/g)].map((m) => m[1]).join('');
    };
    assert.equal(await ask('scripted-flow'), 'from the flowchart');
    assert.equal(await ask('scripted', { 'x-noema-turn': '6', 'x-noema-subject': 'bob' }), 'from the park');
    assert.equal(await ask('scripted'), 'from the agent');
    assert.equal(world.requests.length, 1);
    assert.equal(world.requests[0]!.headers['x-noema-subject'], 'bob', 'headers pass through');
    assert.equal(agent.requests.length, 1);
    assert.equal(flow.requests.length, 1);
  } finally {
    await router.close();
    await Promise.all([world.close(), agent.close(), flow.close()]);
  }
});
