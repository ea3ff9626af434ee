/**
 * Architecture enforced by tests: layers import only inward, code above a layer imports only its
 * front door, and no module imports itself in a cycle. Static and dynamic `import()` both count.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { test } from 'node:test';
import { testTempDir } from '../src/testing/temp-dir.ts';

const root = resolve(import.meta.dirname, '..');
const src = join(root, 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') && !e.name.endsWith('.spec.ts') ? [p] : [];
  });
}

const STATIC_IMPORT =
  /(?:^|\n)\s*(?:import|export)\s+(?:type\s+)?(?:[^'"]*?\s+from\s+)?['"](\.{1,2}\/[^'"]+)['"]/g;
/** `import('…')`, in code (`await import(…)`) or in a type position (`import('…').Type`). */
const DYNAMIC_IMPORT = /\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

interface ImportEdge {
  target: string;
  /** Erased at run time: `import type`, or `import('…')` used as a type. */
  typeOnly: boolean;
  /** `import('…')`: loaded when reached, so it cannot make a load-time cycle. */
  dynamic: boolean;
}

function importsOf(file: string): ImportEdge[] {
  const text = readFileSync(file, 'utf8');
  const out: ImportEdge[] = [];
  for (const m of text.matchAll(STATIC_IMPORT)) {
    out.push({
      target: resolve(dirname(file), m[1]!),
      typeOnly: /^\s*(import|export)\s+type\s/.test(m[0]),
      dynamic: false,
    });
  }
  for (const m of text.matchAll(DYNAMIC_IMPORT)) {
    const at = m.index ?? 0;
    // Loaded at run time when awaited or chained; otherwise `import('…').Name` names a type.
    const runtime =
      /await\s*$/.test(text.slice(Math.max(0, at - 12), at)) ||
      /^\s*\.then\s*\(/.test(text.slice(at + m[0].length, at + m[0].length + 12));
    out.push({ target: resolve(dirname(file), m[1]!), typeOnly: !runtime, dynamic: true });
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
  observability: 4,
  app: 5,
  dev: 6,
  testing: 7,
  surfaces: 8,
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

/**
 * The files of a layer that code in other layers may import: its front door (`index.ts`), its
 * contract file where it has one, and `migrations.ts`, the light door through which the
 * composition root reads a layer's schema without loading the layer. Sources also has
 * `recovery.ts`, startup recovery without the source kinds (~30 MB of RSS). Layers not listed
 * (core, runtimes, app, testing) are folders of independent modules.
 */
const FRONT_DOORS: Record<string, readonly string[]> = {
  store: ['store.ts', 'index.ts'],
  sources: ['index.ts', 'migrations.ts', 'recovery.ts'],
  memory: ['index.ts', 'migrations.ts'],
  engine: ['index.ts', 'engine.ts', 'migrations.ts'],
  observability: ['index.ts', 'migrations.ts'],
};

test('code above a layer imports only its front door (static and dynamic imports)', () => {
  const violations: string[] = [];
  for (const file of sourceFiles(src)) {
    const from = layerOf(file);
    for (const { target } of importsOf(file)) {
      if (!target.startsWith(src)) continue;
      const to = layerOf(target);
      const doors = FRONT_DOORS[to];
      if (to === from || !doors) continue;
      const inside = relative(join(src, to), target);
      if (!doors.includes(inside)) {
        violations.push(
          `${relative(root, file)} imports ${relative(root, target)}: use src/${to}/{${doors.join(',')}}`,
        );
      }
    }
  }
  assert.deepEqual(violations, []);
});

test('nothing in src/ but tests imports src/testing/ (test kits are not product)', () => {
  const testing = join(src, 'testing');
  const violations: string[] = [];
  for (const file of sourceFiles(src)) {
    if (layerOf(file) === 'testing') continue;
    for (const { target } of importsOf(file)) {
      if (target.startsWith(`${testing}/`))
        violations.push(`${relative(root, file)} imports ${relative(root, target)}`);
    }
  }
  assert.deepEqual(violations, []);
});

test('the import scanner sees dynamic and type-position imports', () => {
  const dir = testTempDir('noema-arch-');
  const file = join(dir, 'probe.ts');
  writeFileSync(
    file,
    [
      "import { a } from './static.ts';",
      "const m = await import('./dynamic.ts');",
      "type T = import('./typed.ts').T;",
    ].join('\n'),
  );
  const edges = importsOf(file).map((e) => [relative(dir, e.target), e.typeOnly, e.dynamic]);
  assert.deepEqual(edges, [
    ['static.ts', false, false],
    ['dynamic.ts', false, true],
    ['typed.ts', true, true],
  ]);
});

test('there are no import cycles between modules', () => {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(src)) {
    graph.set(
      file,
      importsOf(file)
        .filter((i) => !i.dynamic && i.target.startsWith(src))
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
