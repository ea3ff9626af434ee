/**
 * The engine's front door stays light: importing it (as every runtime, `noema mcp` and
 * `noema migrate` do) must not load the sources layer, whose source kinds' SDKs and clients weigh
 * about 30 MB of RSS. `sourcesExecutor` loads it on the first contract it performs. Checked on
 * what a fresh process really loads, so a static or transitive import anywhere below the door fails.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';

const ENGINE = new URL('./index.ts', import.meta.url).href;
const SOURCES = new URL('../sources/', import.meta.url).href;

/** Every module URL a fresh process resolves while importing `entry`. */
function loadedBy(entry: string): string[] {
  const script = `
    import { registerHooks } from 'node:module';
    const seen = [];
    registerHooks({ resolve(specifier, context, next) { const r = next(specifier, context); seen.push(r.url); return r; } });
    await import(${JSON.stringify(entry)});
    console.log(JSON.stringify(seen));
  `;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout.trim().split('\n').at(-1)!) as string[];
}

test('importing the engine front door loads no module of the sources layer', () => {
  const loaded = loadedBy(ENGINE);
  assert.ok(
    loaded.some((url) => url.endsWith('/engine/create-engine.ts')),
    'the probe saw the engine load',
  );
  assert.deepEqual(
    loaded.filter((url) => url.startsWith(SOURCES)),
    [],
  );
});
