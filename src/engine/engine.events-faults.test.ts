/**
 * The event pipeline under faults: a commit that fails, a pg_notify the server refuses, a LISTEN
 * connection the server terminates, events too large to notify, malformed notifications and throwing
 * listeners. Fan-out never fails a step; what did not commit is never announced; losses are logged and
 * signalled as gaps.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openStore, parseStoreTarget, type Store } from '../store/index.ts';
import { failCommitsInserting } from '../testing/commit-faults.ts';
import { describeEachStore } from '../testing/each-store.ts';
import { actLoopGraph, CountingExecutor, registerKit } from '../testing/engine-kit.ts';
import { refuseNotifications, terminateListeners } from '../testing/pg-faults.ts';
import { captureWarnings } from '../testing/warnings.ts';
import { createEngine } from './create-engine.ts';
import type { Engine, EngineEvent, EventGap, GraphSpec, Json, NodeType } from './engine.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const NO_FAN_OUT = 'this store has no LISTEN/NOTIFY: events reach no other process';

async function until(check: () => boolean, timeoutMs = 10_000): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (!check() && Date.now() < end) await sleep(10);
  return check();
}

const strip = (e: EngineEvent & { origin?: string }): EngineEvent => {
  const { origin: _o, ...rest } = e;
  return rest as EngineEvent;
};

/** first → art (persists an artifact) → end. */
const artifactGraph: GraphSpec = {
  entry: 'first',
  nodes: [
    { id: 'first', type: 'plain' },
    { id: 'art', type: 'artifacts' },
    { id: 'end', type: 'terminal' },
  ],
  connectors: [
    { from: 'first', to: 'art' },
    { from: 'art', to: 'end' },
  ],
};

function registerTypes(engine: Engine, artifact: Json = { text: 'hi' }, action_type = 'tool_call'): void {
  registerKit(engine);
  engine.register({ type: 'plain', execute: () => ({ kind: 'ok' }) } as NodeType<never>);
  engine.register({
    type: 'artifacts',
    execute: () => ({
      kind: 'ok',
      artifacts: [{ artifact_type: 'note', payload: artifact }],
      contracts: [{ action_type, payload: null }],
    }),
  } as NodeType<never>);
}

/** A second store on the same database, standing for another process. */
async function withOtherProcess(url: string, fn: (other: Store) => Promise<void>): Promise<void> {
  const other = await openStore(parseStoreTarget(url));
  try {
    await fn(other);
  } finally {
    await other.close();
  }
}

describeEachStore('engine events under faults', (factory) => {
  test('a step whose commit fails announces nothing it carried, in-process or elsewhere; progress events still reach other processes', async () => {
    const { store, url, kind, dispose } = await factory.open();
    try {
      await failCommitsInserting(store, kind, 'engine_artifacts');
      const runner = createEngine(store);
      registerTypes(runner);
      const { run_id } = await runner.createRun(artifactGraph);
      const local: EngineEvent[] = [];
      await runner.subscribe(run_id, (e) => local.push(e));
      const remote: EngineEvent[] = [];
      const watch = async (other: Store | null) => {
        if (other) {
          const watcher = createEngine(other);
          await watcher.subscribe(run_id, (e) => remote.push(strip(e)));
        }
        const out = await runner.continueRun(run_id);
        assert.equal(out.status, 'failed', 'the failed commit fails the run');
        assert.equal(local.filter((e) => e.type === 'artifact.persisted').length, 0);
        assert.equal(local.filter((e) => e.type === 'contract.transitioned').length, 0);
        assert.ok(local.some((e) => e.type === 'node.finished' && e.node_id === 'art'));
        const last = local.at(-1);
        assert.equal(last?.type === 'run.updated' && last.status, 'failed');
        assert.equal(await store.get('SELECT 1 AS x FROM engine_artifacts'), undefined);
      };
      if (!store.capabilities.supportsListenNotify) return await watch(null);
      await withOtherProcess(url, async (other) => {
        await watch(other);
        assert.ok(await until(() => remote.length >= local.length), 'the other process got every event');
        assert.deepEqual(remote, local, 'the other process saw exactly what this one saw');
      });
    } finally {
      await dispose();
    }
  });

  test('runs do not carry each other’s events: a run whose commit fails does not lose another run’s progress', async (t) => {
    const { store, url, kind, dispose } = await factory.open();
    try {
      if (!store.capabilities.supportsListenNotify) return t.skip(NO_FAN_OUT);
      await failCommitsInserting(store, kind, 'engine_artifacts');
      const runner = createEngine(store);
      registerTypes(runner);
      let open: () => void = () => {};
      const gate = new Promise<void>((r) => {
        open = r;
      });
      // Publishes progress, then waits while the other run's commit fails.
      runner.register({
        type: 'gated',
        async execute(ctx) {
          ctx.update({ waiting: true });
          await gate;
          return { kind: 'ok' };
        },
      } as NodeType<never>);
      const failing = await runner.createRun({
        entry: 'art',
        nodes: [
          { id: 'art', type: 'artifacts' },
          { id: 'end', type: 'terminal' },
        ],
        connectors: [{ from: 'art', to: 'end' }],
      });
      const healthy = await runner.createRun({
        entry: 'g',
        nodes: [
          { id: 'g', type: 'gated' },
          { id: 'end', type: 'terminal' },
        ],
        connectors: [{ from: 'g', to: 'end' }],
      });
      await withOtherProcess(url, async (other) => {
        const watcher = createEngine(other);
        const local: EngineEvent[] = [];
        const remote: EngineEvent[] = [];
        await runner.subscribe(healthy.run_id, (e) => local.push(e));
        await watcher.subscribe(healthy.run_id, (e) => remote.push(strip(e)));
        const running = runner.continueRun(healthy.run_id);
        assert.ok(await until(() => local.some((e) => e.type === 'node.updated')));
        assert.equal((await runner.continueRun(failing.run_id)).status, 'failed');
        open();
        assert.equal((await running).status, 'completed');
        assert.ok(await until(() => remote.length >= local.length));
        assert.deepEqual(
          remote,
          local,
          'the healthy run’s progress was not lost with the other run’s commit',
        );
      });
    } finally {
      await dispose();
    }
  });

  test('a pg_notify the server refuses never fails the step: the run completes and the failure is logged with the run id', async (t) => {
    const { store, url, dispose } = await factory.open();
    const warnings = captureWarnings();
    try {
      if (!store.capabilities.supportsListenNotify) return t.skip(NO_FAN_OUT);
      await refuseNotifications(url);
      await withOtherProcess(url, async (refused) => {
        const engine = createEngine(refused, { actions: new CountingExecutor() });
        registerKit(engine);
        const seen: EngineEvent[] = [];
        const { run_id } = await engine.createRun(actLoopGraph(3));
        await engine.subscribe(run_id, (e) => seen.push(e));
        const out = await engine.continueRun(run_id);
        assert.equal(out.status, 'completed');
        assert.equal(out.step, 3);
        assert.equal((await engine.getRun(run_id)).state.count, 3);
        const last = seen.at(-1);
        assert.equal(
          last?.type === 'run.updated' && last.status,
          'completed',
          'in-process delivery unaffected',
        );
        assert.ok(await warnings.waitFor('NOEMA_EVENT_NOTIFY_FAILED'));
        await sleep(20);
        const logged = warnings.withCode('NOEMA_EVENT_NOTIFY_FAILED');
        assert.equal(logged.length, 1, 'one incident, one line, though every commit was refused');
        assert.match(logged[0]!.message, new RegExp(run_id));
        await engine.close();
      });
    } finally {
      warnings.stop();
      await dispose();
    }
  });

  test('a subscriber in another process is told of the gap when its LISTEN connection is terminated, and gets later events', async (t) => {
    const { store, url, dispose } = await factory.open();
    try {
      if (!store.capabilities.supportsListenNotify) return t.skip(NO_FAN_OUT);
      await withOtherProcess(url, async (other) => {
        const runner = createEngine(store, { actions: new CountingExecutor() });
        registerKit(runner);
        const watcher = createEngine(other);
        const { run_id } = await runner.createRun(actLoopGraph(2));
        const remote: EngineEvent[] = [];
        const gaps: EventGap[] = [];
        await watcher.subscribe(run_id, (e) => remote.push(e), { onGap: (g) => gaps.push(g) });
        // Both engines' stores listen; the watcher's is the one whose loss matters here.
        assert.ok((await terminateListeners(url)) >= 1);
        assert.ok(await until(() => gaps.length > 0), 'the subscriber was told events may have been missed');
        assert.equal(gaps[0]!.reason, 'listener_reconnected');
        assert.equal(gaps[0]!.run_id, run_id);
        await runner.continueRun(run_id);
        assert.ok(
          await until(() => remote.some((e) => e.type === 'run.updated' && e.status === 'completed')),
        );
        await watcher.close();
        await runner.close();
      });
    } finally {
      await dispose();
    }
  });

  test('an event too large to notify reaches other processes as a gap naming its seq, and is logged', async (t) => {
    const { store, url, dispose } = await factory.open();
    const warnings = captureWarnings();
    try {
      if (!store.capabilities.supportsListenNotify) return t.skip(NO_FAN_OUT);
      const runner = createEngine(store);
      // An action type cannot be abbreviated away: the contract event stays too large for NOTIFY.
      registerTypes(runner, { text: 'x'.repeat(20_000) }, `tool_${'y'.repeat(9_000)}`);
      const { run_id } = await runner.createRun(artifactGraph);
      await withOtherProcess(url, async (other) => {
        const watcher = createEngine(other);
        const local: EngineEvent[] = [];
        const remote: EngineEvent[] = [];
        const gaps: EventGap[] = [];
        await runner.subscribe(run_id, (e) => local.push(e));
        await watcher.subscribe(run_id, (e) => remote.push(e), { onGap: (g) => gaps.push(g) });
        assert.equal((await runner.continueRun(run_id)).status, 'completed');
        assert.ok(
          await until(() => remote.some((e) => e.type === 'run.updated' && e.status === 'completed')),
        );
        const big = local.find((e) => e.type === 'contract.transitioned');
        assert.ok(big, 'in-process subscribers get the event whole');
        assert.equal(remote.filter((e) => e.type === 'contract.transitioned').length, 0);
        assert.deepEqual(
          gaps.map((g) => [g.reason, g.seq]),
          [['event_too_large', big.seq]],
        );
        const artifact = remote.find((e) => e.type === 'artifact.persisted');
        assert.ok(
          artifact?.type === 'artifact.persisted' && artifact.truncated && artifact.artifact === null,
        );
        assert.ok(await warnings.waitFor('NOEMA_EVENT_TOO_LARGE'));
        assert.match(warnings.withCode('NOEMA_EVENT_TOO_LARGE')[0]!.message, new RegExp(run_id));
        await watcher.close();
        await runner.close();
      });
    } finally {
      warnings.stop();
      await dispose();
    }
  });

  test('a malformed notification on the events channel is logged and signalled as a gap', async (t) => {
    const { store, dispose } = await factory.open();
    const warnings = captureWarnings();
    try {
      if (!store.capabilities.supportsListenNotify) return t.skip(NO_FAN_OUT);
      const engine = createEngine(store);
      const gaps: EventGap[] = [];
      const run_id = '0190c0de-0000-7000-8000-000000000001';
      await engine.subscribe(run_id, () => {}, { onGap: (g) => gaps.push(g) });
      await store.transaction((tx) => tx.notify('noema_engine_events', '{"origin": 42'));
      await store.transaction((tx) => tx.notify('noema_engine_events', 'not json either'));
      assert.ok(await until(() => gaps.length === 2));
      assert.deepEqual(
        gaps.map((g) => [g.reason, g.run_id]),
        [
          ['malformed_notification', run_id],
          ['malformed_notification', run_id],
        ],
      );
      assert.ok(await warnings.waitFor('NOEMA_EVENT_MALFORMED'));
      await sleep(20);
      assert.equal(warnings.withCode('NOEMA_EVENT_MALFORMED').length, 1, 'a burst is one incident');
      await engine.close();
    } finally {
      warnings.stop();
      await dispose();
    }
  });

  test("this process's own notifications are skipped before they are parsed", async (t) => {
    const { store, dispose } = await factory.open();
    const warnings = captureWarnings();
    try {
      if (!store.capabilities.supportsListenNotify) return t.skip(NO_FAN_OUT);
      const engine = createEngine(store, { owner: 'own "origin" 語' });
      const gaps: EventGap[] = [];
      const run_id = '0190c0de-0000-7000-8000-000000000002';
      await engine.subscribe(run_id, () => {}, { onGap: (g) => gaps.push(g) });
      // Its own head, then what no parser accepts: read, it would be a malformed notification.
      const own = `{"origin":${JSON.stringify('own "origin" 語')},"events":[{`;
      await store.transaction((tx) => tx.notify('noema_engine_events', own));
      // Another origin's broken payload after it: once its gap arrives, the first was heard too.
      const other = '{"origin":"other","events":[{';
      await store.transaction((tx) => tx.notify('noema_engine_events', other));
      assert.ok(await until(() => gaps.length >= 1));
      await sleep(50);
      assert.deepEqual(
        gaps.map((g) => g.reason),
        ['malformed_notification'],
        'one gap, for the other origin',
      );
      assert.equal(warnings.withCode('NOEMA_EVENT_MALFORMED').length, 1);
      assert.match(
        warnings.withCode('NOEMA_EVENT_MALFORMED')[0]!.message,
        new RegExp(`"bytes":${Buffer.byteLength(other)}`),
        "the other origin's payload, not this process's",
      );
      await engine.close();
    } finally {
      warnings.stop();
      await dispose();
    }
  });

  test('a listener that throws is logged once with the run id; the run and the other listeners go on', async () => {
    const { store, dispose } = await factory.open();
    const warnings = captureWarnings();
    try {
      const engine = createEngine(store, { actions: new CountingExecutor() });
      registerKit(engine);
      const { run_id } = await engine.createRun(actLoopGraph(3));
      const seen: EngineEvent[] = [];
      await engine.subscribe(run_id, () => {
        throw new Error('listener bug');
      });
      await engine.subscribe(run_id, (e) => seen.push(e));
      assert.equal((await engine.continueRun(run_id)).status, 'completed');
      assert.equal(seen.at(-1)?.type, 'run.updated');
      assert.ok(await warnings.waitFor('NOEMA_EVENT_LISTENER_FAILED'));
      await sleep(20);
      const logged = warnings.withCode('NOEMA_EVENT_LISTENER_FAILED');
      assert.equal(logged.length, 1, 'once, not once per event');
      assert.match(logged[0]!.message, new RegExp(`${run_id}.*listener bug`));
      await engine.close();
    } finally {
      warnings.stop();
      await dispose();
    }
  });
});
