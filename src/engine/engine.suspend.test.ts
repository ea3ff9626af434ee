import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { describeEachStore } from '../testing/each-store.ts';
import { humanGraph, registerKit } from '../testing/engine-kit.ts';
import { createEngine } from './create-engine.ts';

const WORKER = fileURLToPath(new URL('../testing/engine-worker.ts', import.meta.url));

function worker(url: string, args: string[]): { ok: boolean; code?: string; outcome?: { status: string } } {
  const r = spawnSync(process.execPath, [WORKER, ...args], {
    env: { ...process.env, NOEMA_DB: url },
    encoding: 'utf8',
    timeout: 30_000,
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout.trim().split('\n').at(-1)!);
}

describeEachStore('engine suspension', (factory) => {
  test('a node suspends with a WAITING contract; the run persists and stops; a second process resumes it', async () => {
    const { store, url, dispose } = await factory.open();
    try {
      const engine = createEngine(store);
      registerKit(engine);
      const out = await engine.start(humanGraph);
      assert.equal(out.status, 'waiting');
      const [waiting] = out.waiting;
      assert.equal(waiting?.status, 'WAITING');
      assert.equal(
        (await store.get<{ lease_owner: string | null }>('SELECT lease_owner FROM engine_runs'))?.lease_owner,
        null,
      );
      const res = worker(url, [
        'resume',
        out.run_id,
        waiting!.contract_id,
        JSON.stringify({ approved: true, note: 'ok' }),
      ]);
      assert.equal(res.ok, true, JSON.stringify(res));
      assert.equal(res.outcome?.status, 'completed');
      const run = await engine.getRun(out.run_id);
      assert.equal(run.status, 'completed');
      assert.deepEqual(run.state.messages, ['resumed']);
      const c = run.contracts[0]!;
      assert.equal(c.status, 'COMPLETED');
      assert.deepEqual(c.result, { approved: true, note: 'ok' });
      assert.deepEqual(
        c.transitions.map((t) => `${t.from}→${t.to}@${t.actor}`),
        [
          'null→PENDING@node:ask',
          'PENDING→WAITING@node:ask',
          'WAITING→RUNNING@resume',
          'RUNNING→COMPLETED@resume',
        ],
      );
    } finally {
      await dispose();
    }
  });

  test('a resume whose response does not match the schema is rejected and changes nothing', async () => {
    const { store, dispose } = await factory.open();
    try {
      const engine = createEngine(store);
      registerKit(engine);
      const out = await engine.start(humanGraph);
      const id = out.waiting[0]!.contract_id;
      const before = await engine.getRun(out.run_id);
      const journal = await store.all('SELECT jid, body FROM engine_journal ORDER BY jid');
      await assert.rejects(
        engine.resume(out.run_id, id, { approved: 'yes' }),
        (e: { code: string; details: { errors: unknown[] } }) => {
          assert.equal(e.code, 'SCHEMA_INVALID');
          assert.ok(e.details.errors.length > 0);
          return true;
        },
      );
      assert.deepEqual(await engine.getRun(out.run_id), before);
      assert.deepEqual(await store.all('SELECT jid, body FROM engine_journal ORDER BY jid'), journal);
    } finally {
      await dispose();
    }
  });

  test('resuming a contract that is not WAITING is an INVALID_TRANSITION that changes nothing', async () => {
    const { store, url, dispose } = await factory.open();
    try {
      const engine = createEngine(store);
      registerKit(engine);
      const out = await engine.start(humanGraph);
      const id = out.waiting[0]!.contract_id;
      await engine.resume(out.run_id, id, { approved: false });
      const before = await engine.getRun(out.run_id);
      await assert.rejects(engine.resume(out.run_id, id, { approved: true }), { code: 'INVALID_TRANSITION' });
      const remote = worker(url, ['resume', out.run_id, id, JSON.stringify({ approved: true })]);
      assert.deepEqual([remote.ok, remote.code], [false, 'INVALID_TRANSITION']);
      assert.deepEqual(await engine.getRun(out.run_id), before);
      await assert.rejects(engine.resume(out.run_id, '00000000-0000-7000-8000-000000000000', {}), {
        code: 'UNKNOWN_CONTRACT',
      });
    } finally {
      await dispose();
    }
  });

  test('two concurrent resumes of one contract: exactly one wins', async () => {
    const { store, dispose } = await factory.open();
    try {
      const a = createEngine(store);
      const b = createEngine(store);
      registerKit(a);
      registerKit(b);
      const out = await a.start(humanGraph);
      const id = out.waiting[0]!.contract_id;
      const results = await Promise.allSettled([
        a.resume(out.run_id, id, { approved: true }),
        b.resume(out.run_id, id, { approved: false }),
      ]);
      assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
      const run = await a.getRun(out.run_id);
      assert.equal(run.status, 'completed');
      assert.deepEqual(run.state.messages, ['resumed']);
    } finally {
      await dispose();
    }
  });
});
