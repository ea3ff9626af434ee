/**
 * A flowchart's picture reads at 1280×800: in Chromium, every node's label sits inside its box, no two
 * labels overlap, and the text is drawn at a legible size on screen (the picture is not shrunk to fit).
 * The example flowchart (support-triage, nine nodes) and a wider one of fourteen nodes in a chain.
 * Rendering is the same on both stores; this runs on SQLite.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Page } from 'playwright-core';
import { createFlowchart } from '../../src/runtimes/flow/index.ts';
import { launchBrowser } from '../../src/testing/browser.ts';
import { EXAMPLE, readJson } from '../../src/testing/flow-kit.ts';
import { openTestStore, type TestStore } from '../../src/testing/stores.ts';
import { type Served, serveStore } from './fixture.ts';

const launched = await launchBrowser();
const skip = 'skip' in launched ? launched.skip : false;
after(async () => {
  if (!('skip' in launched)) await launched.close();
});

/** Smallest on-screen size (CSS px) of a node's label and of its type line. */
const MIN_LABEL_PX = 11;
const MIN_KIND_PX = 9;

type Box = { x: number; y: number; w: number; h: number };
type Measured = {
  id: string;
  rect: Box;
  label: Box;
  kind: Box | null;
  labelPx: number;
  kindPx: number | null;
};

/** Every node of the page's first graph picture, measured on screen (a string: no DOM types here). */
const MEASURE = `(() => {
  const svg = document.querySelector('svg.graph');
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  const box = (el) => { const r = el.getBoundingClientRect(); return { x: r.x, y: r.y, w: r.width, h: r.height }; };
  const px = (el) => parseFloat(getComputedStyle(el).fontSize) * scale;
  return [...svg.querySelectorAll('g.node')].map((n) => {
    const label = n.querySelector('.node-label');
    const kind = n.querySelector('.node-kind');
    return { id: n.getAttribute('data-node-id'), rect: box(n.querySelector('rect')), label: box(label),
      kind: kind ? box(kind) : null, labelPx: px(label), kindPx: kind ? px(kind) : null };
  });
})()`;

const inside = (a: Box, b: Box) =>
  a.x >= b.x - 0.5 && a.y >= b.y - 0.5 && a.x + a.w <= b.x + b.w + 0.5 && a.y + a.h <= b.y + b.h + 0.5;
const overlap = (a: Box, b: Box) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

function assertReadable(nodes: Measured[], count: number): void {
  assert.equal(nodes.length, count);
  for (const n of nodes) {
    assert.ok(n.labelPx >= MIN_LABEL_PX, `${n.id}: label drawn at ${n.labelPx.toFixed(1)} px`);
    if (n.kindPx !== null)
      assert.ok(n.kindPx >= MIN_KIND_PX, `${n.id}: type drawn at ${n.kindPx.toFixed(1)} px`);
    assert.ok(inside(n.label, n.rect), `${n.id}: label inside its box`);
    if (n.kind) assert.ok(inside(n.kind, n.rect), `${n.id}: type inside its box`);
  }
  for (const [i, a] of nodes.entries())
    for (const b of nodes.slice(i + 1))
      assert.ok(!overlap(a.label, b.label), `labels of ${a.id} and ${b.id} overlap`);
}

describe('flowchart pictures at 1280×800', { skip }, () => {
  let ts: TestStore;
  let served: Served;
  let page: Page;
  before(async () => {
    if ('skip' in launched) return;
    ts = await openTestStore('sqlite');
    served = await serveStore(ts.store);
    page = await launched.browser.newPage({ viewport: { width: 1280, height: 800 }, bypassCSP: true });
    await page.goto(served.loginUrl);
  });
  after(async () => {
    await page?.close();
    await served?.close();
    await ts?.dispose();
  });

  test('the example flowchart: labels inside their boxes, apart, at a legible size', async () => {
    const { flowchart_id } = await createFlowchart(ts.store, readJson(EXAMPLE));
    await page.goto(`${served.url}/flowcharts/${flowchart_id}`);
    assertReadable((await page.evaluate(MEASURE)) as Measured[], 9);
  });

  test('a chain of fourteen nodes with long titles stays legible (the picture scrolls, it is not shrunk)', async () => {
    const example = readJson(EXAMPLE) as {
      name: string;
      graph: { nodes: Array<Record<string, unknown>>; edges: unknown[] };
    };
    const base = example.graph.nodes.find((n) => n.id === 'summarize')!;
    const start = example.graph.nodes.find((n) => n.id === 'start')!;
    const nodes = [
      start,
      ...Array.from({ length: 13 }, (_, i) => ({
        ...base,
        id: `step${i + 1}`,
        title: `Step ${i + 1}: a rather long title for this node`,
      })),
    ];
    const edges = nodes.slice(1).map((n, i) => ({
      ...(example.graph.edges[0] as Record<string, unknown>),
      id: `e${i}`,
      source_node_id: nodes[i]!.id,
      target_node_id: n.id,
    }));
    const { flowchart_id } = await createFlowchart(ts.store, {
      ...example,
      name: 'long chain',
      graph: { ...example.graph, nodes, edges },
    });
    await page.goto(`${served.url}/flowcharts/${flowchart_id}`);
    assertReadable((await page.evaluate(MEASURE)) as Measured[], 14);
  });
});
