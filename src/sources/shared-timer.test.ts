/** Per-call deadlines on one shared timer: each runs once, at its time, unless cancelled. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { runAfter } from './shared-timer.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('each callback runs once, not before its time, in the order of their deadlines', async () => {
  const t0 = performance.now();
  const ran: Array<[string, number]> = [];
  const at = (name: string) => () => ran.push([name, performance.now() - t0]);
  runAfter(60, at('late'), false);
  runAfter(20, at('early'), false);
  runAfter(40, at('middle'), true);
  await sleep(120);
  assert.deepEqual(
    ran.map(([name]) => name),
    ['early', 'middle', 'late'],
  );
  for (const [name, elapsed] of ran) {
    const due = { early: 20, middle: 40, late: 60 }[name]!;
    // A Node timer may fire up to a millisecond early on the monotonic clock.
    assert.ok(elapsed >= due - 1, `${name} ran at ${elapsed} ms, due at ${due}`);
  }
});

test('a cancelled callback never runs; the others still do', async () => {
  const ran: string[] = [];
  const first = runAfter(10, () => ran.push('first'), true);
  runAfter(30, () => ran.push('second'), false);
  first.cancel();
  first.cancel();
  await sleep(60);
  assert.deepEqual(ran, ['second']);
});

test('a pending keep-alive deadline keeps the process running; the others do not', () => {
  const script = (keepAlive: boolean) =>
    `import { runAfter } from ${JSON.stringify(new URL('./shared-timer.ts', import.meta.url).href)};
     runAfter(300, () => console.log('fired'), ${keepAlive});`;
  const run = (keepAlive: boolean) =>
    spawnSync(process.execPath, ['--input-type=module', '-e', script(keepAlive)], { encoding: 'utf8' });
  const kept = run(true);
  assert.equal(kept.status, 0, kept.stderr);
  assert.equal(kept.stdout.trim(), 'fired');
  const notKept = run(false);
  assert.equal(notKept.status, 0, notKept.stderr);
  assert.equal(notKept.stdout.trim(), '', 'the process ended without waiting for it');
});
