/** Architecture enforced by tests: layers import only inward, and no module imports itself in a cycle. */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';

const root = resolve(import.meta.dirname, '..');
const src = join(root, 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !e.name.endsWith('.spec.ts') ? [p] : [];
  });
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s+(?:type\s+)?(?:[^'"]*?\s+from\s+)?['"](\.{1,2}\/[^'"]+)['"]/g;

function importsOf(file: string): Array<{ target: string; typeOnly: boolean }> {
  const text = readFileSync(file, 'utf8');
  const out: Array<{ target: string; typeOnly: boolean }> = [];
  for (const m of text.matchAll(IMPORT)) {
    out.push({ target: resolve(dirname(file), m[1]!), typeOnly: /^\s*(import|export)\s+type\s/.test(m[0]) });
  }
  return out;
}

/** Layer of a file: its first folder under src/. Lower layers may not import higher ones. */
const RANK: Record<string, number> = {
  core: 0,
  store: 1,
  sources: 2,
  memory: 2,
  engine: 3,
  runtimes: 4,
  app: 5,
  testing: 6,
  surfaces: 7,
};

function layerOf(file: string): string {
  return relative(src, file).split('/')[0]!;
}

test('every folder under src/ has a known layer', () => {
  for (const file of sourceFiles(src)) {
    const layer = layerOf(file);
    assert.ok(layer in RANK, `${relative(root, file)} is in unknown layer "${layer}"`);
  }
});

test('layers import only inward (surfaces → runtimes → engine/memory/sources → store → core)', () => {
  const violations: string[] = [];
  for (const file of sourceFiles(src)) {
    const from = layerOf(file);
    for (const { target } of importsOf(file)) {
      if (!target.startsWith(src)) continue;
      const to = layerOf(target);
      if (to === from) continue;
      const sameRankPeers = RANK[from] === RANK[to] && from !== to;
      if (RANK[to]! > RANK[from]! || sameRankPeers) {
        violations.push(`${relative(root, file)} (${from}) imports ${relative(root, target)} (${to})`);
      }
    }
  }
  assert.deepEqual(violations, []);
});

test('there are no import cycles between modules', () => {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(src)) {
    graph.set(
      file,
      importsOf(file)
        .filter((i) => !i.typeOnly && i.target.startsWith(src))
        .map((i) => i.target),
    );
  }
  const state = new Map<string, 'visiting' | 'done'>();
  const cycles: string[] = [];
  const visit = (node: string, stack: string[]) => {
    if (state.get(node) === 'done') return;
    if (state.get(node) === 'visiting') {
      cycles.push([...stack.slice(stack.indexOf(node)), node].map((f) => relative(src, f)).join(' → '));
      return;
    }
    state.set(node, 'visiting');
    for (const next of graph.get(node) ?? []) visit(next, [...stack, node]);
    state.set(node, 'done');
  };
  for (const node of graph.keys()) visit(node, []);
  assert.deepEqual(cycles, []);
});
