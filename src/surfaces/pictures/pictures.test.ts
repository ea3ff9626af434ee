// The browser's pictures: well-formed, escaped SVG whose marks match the records they draw.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { branchTreePicture, graphPicture, nestRows, turnTimelinePicture, waterfallPicture } from './index.ts';

/** Checks tags are balanced and no raw `<`/`&` appears in text (a tiny XML well-formedness check). */
function assertWellFormed(svg: string): void {
  const stack: string[] = [];
  const re = /<(\/?)([a-zA-Z][\w:-]*)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>|([^<]+)/g;
  let consumed = 0;
  for (let m = re.exec(svg); m; m = re.exec(svg)) {
    assert.equal(
      m.index,
      consumed,
      `unexpected markup at ${consumed}: ${svg.slice(consumed, consumed + 40)}`,
    );
    consumed = re.lastIndex;
    const [, close, tag, , selfClose, txt] = m;
    if (txt !== undefined) {
      assert.doesNotMatch(txt, /&(?!(amp|lt|gt|quot|#39);)/, `bare & in text: ${txt}`);
      continue;
    }
    if (close) assert.equal(stack.pop(), tag, `</${tag}> closes the wrong element`);
    else if (!selfClose) stack.push(tag!);
  }
  assert.equal(consumed, svg.length, 'the whole document parsed');
  assert.deepEqual(stack, [], 'every element closed');
}

const count = (s: string, re: RegExp) => (s.match(re) ?? []).length;

test('a graph picture draws every node once and styles connectors by mode', () => {
  const svg = graphPicture({
    title: 'flowchart',
    nodes: [
      { id: 'start', kind: 'start' },
      { id: 'mem', label: 'Remember', kind: 'memory', href: '/flowcharts/1/nodes/mem' },
      { id: 'plan', kind: 'plan', status: 'failed' },
      { id: 'end', kind: 'end' },
    ],
    edges: [
      { from: 'start', to: 'mem', mode: 'solid' },
      { from: 'mem', to: 'plan', mode: 'dotted' },
      { from: 'mem', to: 'end', mode: 'dashed', label: 'yes' },
      { from: 'plan', to: 'ghost' },
    ],
    highlight: ['mem'],
  }).markup;
  assertWellFormed(svg);
  assert.equal(count(svg, /data-node-id="/g), 4);
  assert.equal(count(svg, /class="edge edge-/g), 3, 'a connector to an unknown node is not drawn');
  assert.match(svg, /edge-dotted[^>]*><path[^>]*stroke-dasharray="2 4"/);
  assert.match(svg, /edge-dashed[^>]*><path[^>]*stroke-dasharray="8 5"/);
  assert.doesNotMatch(svg.match(/<g class="edge edge-solid"[^>]*><path[^>]*>/)?.[0] ?? '', /dasharray/);
  assert.match(svg, /class="node node-memory current" data-node-id="mem"/);
  assert.match(svg, /class="node node-plan status-failed"/);
  assert.match(svg, /<a href="\/flowcharts\/1\/nodes\/mem">/);
  assert.match(svg, /class="edge-label">yes</);
});

test('labels with markup are escaped, and only relative links are kept', () => {
  const svg = graphPicture({
    title: '<b>t</b>',
    nodes: [
      { id: 'x', label: '<script>alert(1)</script>', href: 'javascript:alert(1)' },
      { id: 'y', label: 'a & b "q"', href: '//evil.example/' },
    ],
    edges: [{ from: 'x', to: 'y' }],
  }).markup;
  assertWellFormed(svg);
  assert.doesNotMatch(svg, /<script/);
  assert.match(svg, /&lt;script&gt;/);
  assert.match(svg, /a &amp; b &quot;q&quot;/);
  assert.doesNotMatch(svg, /<a /, 'javascript: and protocol-relative links are dropped');
});

test('the waterfall nests children under their parent and runs open bars to now', () => {
  const rows = [
    {
      id: 'tool',
      parent_id: 'gen1',
      label: 'vending',
      kind: 'model_elected_tool',
      status: 'succeeded',
      started_at_ms: 1300,
      ended_at_ms: 1500,
    },
    {
      id: 'amb',
      label: 'weather',
      kind: 'ambient_context',
      status: 'succeeded',
      started_at_ms: 1000,
      ended_at_ms: 1100,
    },
    {
      id: 'gen1',
      label: 'generation 1',
      kind: 'llm_generation',
      status: 'succeeded',
      started_at_ms: 1200,
      ended_at_ms: 1250,
    },
    {
      id: 'gen2',
      parent_id: 'gen1',
      label: 'retry',
      kind: 'llm_generation',
      status: 'running',
      started_at_ms: 1600,
      ended_at_ms: null,
      href: '/llm-calls/2',
    },
  ];
  assert.deepEqual(
    nestRows(rows).map((r) => [r.row.id, r.depth]),
    [
      ['amb', 0],
      ['gen1', 0],
      ['tool', 1],
      ['gen2', 1],
    ],
  );
  const svg = waterfallPicture(rows, 'attempt', 2000).markup;
  assertWellFormed(svg);
  assert.equal(count(svg, /class="bar /g), 4);
  assert.match(svg, /class="bar kind-llm_generation status-running running" data-id="gen2"/);
  assert.match(svg, /<a href="\/llm-calls\/2">/);
  assert.match(svg, /class="tick-label">1.00 s</, 'the axis spans first start to now');
});

test('a parent cycle in the waterfall still shows every row once', () => {
  const rows = [
    { id: 'a', parent_id: 'b', label: 'a', kind: 'k', status: 'succeeded', started_at_ms: 0, ended_at_ms: 1 },
    { id: 'b', parent_id: 'a', label: 'b', kind: 'k', status: 'succeeded', started_at_ms: 0, ended_at_ms: 1 },
  ];
  assert.deepEqual(
    nestRows(rows)
      .map((r) => r.row.id)
      .sort(),
    ['a', 'b'],
  );
});

test('the turn timeline draws one mark per patch, failures marked, cells with several patches spread', () => {
  const svg = turnTimelinePicture({
    title: 'park',
    turns: [1, 2, 3],
    subjects: ['bob', 'ant'],
    marks: [
      { turn: 1, subject: 'bob', status: 'committed', label: 'walks', href: '/attempts/a1' },
      { turn: 2, subject: 'bob', status: 'committed', label: 'buys candy' },
      { turn: 2, subject: 'bob', status: 'committed', label: 'eats' },
      { turn: 2, subject: 'ant', status: 'committed', label: 'eats crumb' },
      { turn: 3, subject: 'bob', status: 'failed', label: 'invalid patch' },
      { turn: 9, subject: 'bob', status: 'committed', label: 'not a listed turn' },
    ],
  }).markup;
  assertWellFormed(svg);
  assert.equal(count(svg, /class="mark /g), 5);
  assert.equal(count(svg, /class="mark status-failed"/g), 1);
  const cxs = [...svg.matchAll(/data-turn="2" data-subject="bob"><circle cx="([\d.]+)"/g)].map((m) => m[1]);
  assert.equal(new Set(cxs).size, 2, 'two patches in one cell do not overlap');
});

test('the branch tree joins each branch to its base at the cutoff', () => {
  const svg = branchTreePicture(
    [
      { name: 'main', base_branch: null, base_seq: null, head_seq: 40 },
      { name: 'feature', base_branch: 'main', base_seq: 20, head_seq: 35 },
      { name: 'spike', base_branch: 'feature', base_seq: 30, head_seq: 31 },
    ],
    'workspace',
  ).markup;
  assertWellFormed(svg);
  assert.equal(count(svg, /class="branch"/g), 3);
  assert.equal(count(svg, /class="fork"/g), 2);
  assert.match(svg, /feature: from main @ seq 20, head 35/);
});

test('a node’s edge to itself is drawn as a curve off its side, inside the picture', () => {
  const svg = graphPicture({
    title: 'retry loop',
    nodes: [
      { id: 'plan', kind: 'reasoning' },
      { id: 'act', kind: 'tool' },
    ],
    edges: [
      { from: 'plan', to: 'act' },
      { from: 'act', to: 'act', label: 'retry' },
    ],
  }).markup;
  const loop = /<g class="edge edge-solid self-loop" data-from="act" data-to="act"><path d="([^"]+)"/.exec(
    svg,
  );
  assert.ok(loop, svg);
  const d = loop[1]!;
  assert.match(
    d,
    /^M-?[\d.]+,-?[\d.]+ C-?[\d.]+,-?[\d.]+ -?[\d.]+,-?[\d.]+ -?[\d.]+,-?[\d.]+$/,
    'one cubic curve',
  );
  const width = Number(/<svg[^>]* width="([\d.]+)"/.exec(svg)![1]);
  const xs = [...d.matchAll(/([\d.]+),/g)].map((m) => Number(m[1]));
  assert.ok(Math.max(...xs) < width, `the loop (up to x=${Math.max(...xs)}) fits the picture (${width})`);
  assert.ok(svg.includes('>retry</text>'), 'the label is drawn by the loop');
});
