/** Pure pieces of the browser: linked JSON (escaped, links only from known fields), waterfall rows (retries nested). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
// The catalog's kinds, as the server registers them: catalog paths are linked by kind.
import '../../src/surfaces/http/kinds/index.ts';
import { linkedJson } from '../../src/surfaces/http/html/linked-json.ts';
import { waterfallRows } from '../../src/surfaces/http/pages/common.ts';

test('linked JSON does not link JSON pointers that look like paths (/ambient/…, /world/…)', () => {
  const out = linkedJson({
    inject_as: '/ambient/environments/park/weather',
    path: '/world/simulation_time',
  }).toString();
  assert.ok(!out.includes('<a '), out);
});

test('linked JSON links ids, hashes and catalog paths and escapes everything else', () => {
  const out = linkedJson({
    attempt_id: 'a-1',
    workflow_hash: 'f'.repeat(64),
    links: { self: '/runs/r-1' },
    narration: '<script>alert(1)</script>',
    nested: [{ llm_call_id: 'c"1' }],
    note: 'javascript:alert(1)',
  }).toString();
  assert.match(out, /<a href="\/attempts\/a-1">&quot;a-1&quot;<\/a>/);
  assert.match(out, /<a href="\/cognition-workflows\/hash\/f{64}">/);
  assert.match(out, /<a href="\/runs\/r-1">/);
  assert.match(out, /<a href="\/llm-calls\/c%221">/);
  assert.ok(out.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
  assert.ok(!out.includes('<script>'));
  assert.ok(!out.includes('href="javascript:'));
  assert.deepEqual(
    JSON.parse(
      out
        .replace(/<[^>]+>/g, '')
        .replace(/&quot;/g, '"')
        .replace(/&lt;/g, '<')
        .replace(/&gt;/g, '>')
        .replace(/&amp;/g, '&')
        .replace(/&#39;/g, "'"),
    ).attempt_id,
    'a-1',
  );
});

test('waterfall rows nest tool calls under their generation and retries under the first attempt', () => {
  const base = {
    attempt_id: 'A',
    workflow_subject_entity_id: 'bob',
    workflow_node_id: 'act',
    status: 'succeeded',
  };
  const rows = waterfallRows([
    {
      ...base,
      source_invocation_id: 'g1',
      invocation_kind: 'llm_generation',
      logical_generation_attempt: 1,
      tool_loop_round: 0,
      started_at: 0,
      duration_ms: 5,
    },
    {
      ...base,
      source_invocation_id: 'g2',
      invocation_kind: 'llm_generation',
      logical_generation_attempt: 2,
      tool_loop_round: 0,
      started_at: 6,
      duration_ms: 5,
    },
    {
      ...base,
      source_invocation_id: 't1',
      invocation_kind: 'model_elected_tool',
      tool_name: 'buy_candy',
      parent_source_invocation_id: 'g2',
      started_at: 12,
      duration_ms: 1,
    },
    {
      ...base,
      source_invocation_id: 'r',
      invocation_kind: 'llm_generation',
      status: 'running',
      logical_generation_attempt: 1,
      tool_loop_round: 1,
      started_at: 14,
      duration_ms: null,
    },
  ]);
  const byId = new Map(rows.map((r) => [r.id, r]));
  assert.equal(byId.get('g2')?.parent_id, 'g1');
  assert.equal(byId.get('t1')?.parent_id, 'g2');
  assert.equal(byId.get('g1')?.parent_id, null);
  assert.equal(byId.get('r')?.ended_at_ms, null, 'a running call has no end');
  assert.equal(byId.get('t1')?.label, 'bob · tool buy_candy');
  assert.equal(byId.get('g2')?.label, 'bob · generation retry 2');
});
