// Seed 003's socket events from a run's start: `flowchart:subscribe` replays the run's stored events
// (from the start or after `last_event_id`), then continues live, each event once; a subscription to
// a flowchart alone joins its room. A real socket.io-client against a real server, on both stores.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { io as ioClient, type Socket } from 'socket.io-client';
import { createFlowRun } from '../../src/runtimes/flow/index.ts';
import { startNoemaHttp } from '../../src/surfaces/http/start.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { EXAMPLE, EXAMPLE_SCRIPT, flowKit, readJson } from '../../src/testing/flow-kit.ts';
import { connectSse } from '../../src/testing/sse-client.ts';
import { testTempDir } from '../../src/testing/temp-dir.ts';
import type { Loose } from './helpers.ts';

const TOKEN = 'flow-replay-token-0123456789';
const NAMES = ['flowchart.node.updated', 'flowchart.run.updated', 'flowchart:node_artifact:persisted'];
/** What one run of the example sends: 16 node updates (8 nodes, start and end), 2 run updates, 5 artifacts. */
const COUNTS = {
  'flowchart.node.updated': 16,
  'flowchart.run.updated': 2,
  'flowchart:node_artifact:persisted': 5,
};

type Got = { name: string; body: Loose };

/** A seed event's identity: a node run in a status, an artifact, the run in a status. */
const keyOf = (g: Got) =>
  g.name === 'flowchart.run.updated'
    ? `run:${g.body.status}`
    : g.name === 'flowchart.node.updated'
      ? `node:${g.body.node_run_id}:${g.body.status}`
      : `artifact:${g.body.artifact_id}`;

const countsOf = (list: Got[]) =>
  Object.fromEntries(NAMES.map((n) => [n, list.filter((g) => g.name === n).length]));

function collect(socket: Socket): Got[] {
  const got: Got[] = [];
  for (const name of NAMES) socket.on(name, (body: Loose) => got.push({ name, body }));
  return got;
}

const completed = (list: Got[], run: string) =>
  list.some(
    (g) =>
      g.name === 'flowchart.run.updated' && g.body.flowchart_run_id === run && g.body.status === 'completed',
  );

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await sleep(20);
  assert.ok(check(), what);
}

describeEachStore('flowchart:subscribe replays a run from its start', (factory) => {
  test('after the run ended, from the start, after last_event_id, and while it runs: each event once', async () =>
    factory.withStore(async ({ store }) => {
      const kit = await flowKit(store, readJson(EXAMPLE_SCRIPT));
      const http = await startNoemaHttp({
        store,
        engine: kit.engine,
        host: '127.0.0.1',
        port: 0,
        portSetting: '--port',
        token: TOKEN,
        dataDir: testTempDir('noema-flow-replay-'),
      });
      const sockets: Socket[] = [];
      const connect = () => {
        const s = ioClient(http.url, {
          auth: { token: TOKEN },
          transports: ['websocket'],
          reconnection: false,
        });
        sockets.push(s);
        return s;
      };
      const post = async (path: string, body: unknown) => {
        const res = await fetch(`${http.url}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        return (await res.json()) as Loose;
      };
      try {
        const { flowchart_id } = await post('/api/flowcharts', readJson(EXAMPLE));
        const first = (await post(`/api/flowcharts/${flowchart_id}/runs`, { input: { message: 'jam' } }))
          .flowchart_run_id as string;
        const status = async (run: string) =>
          (
            (await (
              await fetch(`${http.url}/api/flowcharts/${flowchart_id}/runs/${run}`, {
                headers: { authorization: `Bearer ${TOKEN}` },
              })
            ).json()) as Loose
          ).item.status;
        for (let i = 0; i < 1500 && (await status(first)) !== 'completed'; i++) await sleep(20);
        assert.equal(await status(first), 'completed');

        // The run is over: subscribing replays all of it, in the order it happened.
        const late = connect();
        const replay = collect(late);
        const ack = await late.timeout(5000).emitWithAck('flowchart:subscribe', {
          flowchart_id,
          flowchart_run_id: first,
        });
        assert.deepEqual(ack, { ok: true, flowchart_id, flowchart_run_id: first });
        await until(
          () => completed(replay, first),
          `the replay ends with the run completed: ${replay.map(keyOf)}`,
        );
        await sleep(100);
        assert.deepEqual(countsOf(replay), COUNTS);
        assert.equal(new Set(replay.map(keyOf)).size, replay.length, 'each event once');
        assert.ok(replay.every((g) => g.body.replayed === true && g.body.flowchart_run_id === first));
        assert.equal(keyOf(replay[0]!), 'run:running');
        assert.equal(keyOf(replay.at(-1)!), 'run:completed');
        const started = replay.findIndex((g) => g.name === 'flowchart.node.updated');
        assert.equal(replay[started]!.body.status, 'running');
        // The server watched the run from its start (it was started through its API): replayed events carry their ids.
        assert.ok(replay.every((g) => Number.isSafeInteger(g.body.id)));

        // Resume after the 7th event: exactly what followed it.
        const resumed = connect();
        const rest = collect(resumed);
        const at = replay[6]!;
        assert.equal(
          (
            await resumed.timeout(5000).emitWithAck('flowchart:subscribe', {
              flowchart_id,
              flowchart_run_id: first,
              last_event_id: at.body.id,
            })
          ).ok,
          true,
        );
        await until(() => completed(rest, first), 'the resumed replay ends with the run completed');
        await sleep(100);
        assert.deepEqual(rest.map(keyOf), replay.slice(7).map(keyOf));

        // SSE replays the same way: the whole run, then after a Last-Event-ID exactly what followed.
        const sseOf = async (headers: Record<string, string>) => {
          const sse = await connectSse(`${http.url}/api/flowcharts/${flowchart_id}/runs/${first}/events`, {
            authorization: `Bearer ${TOKEN}`,
            ...headers,
          });
          const out: Got[] = [];
          try {
            for (;;) {
              const m = await sse.next(10_000);
              assert.ok(m && m.event !== 'resync', `SSE: ${JSON.stringify(m)}`);
              const g = { name: m.event, body: JSON.parse(m.data) as Loose };
              assert.match(String(m.id), /^\d+$/, 'replayed events carry their ids');
              out.push(g);
              if (keyOf(g) === 'run:completed') return out;
            }
          } finally {
            sse.close();
          }
        };
        assert.deepEqual((await sseOf({})).map(keyOf), replay.map(keyOf));
        assert.deepEqual(
          (await sseOf({ 'last-event-id': String(at.body.id) })).map(keyOf),
          replay.slice(7).map(keyOf),
        );

        // Subscribed right after POST …/runs answers: all of it, each once, whether replayed or live.
        const eager = connect();
        const eagerGot = collect(eager);
        await new Promise<void>((r) => eager.on('connect', () => r()));
        const second = (await post(`/api/flowcharts/${flowchart_id}/runs`, { input: { message: 'again' } }))
          .flowchart_run_id as string;
        const ack2 = await eager.timeout(5000).emitWithAck('flowchart:subscribe', {
          flowchart_id,
          flowchart_run_id: second,
        });
        assert.equal(ack2.ok, true);
        await until(() => completed(eagerGot, second), 'the live run completes');
        await sleep(150);
        const ofSecond = eagerGot.filter((g) => g.body.flowchart_run_id === second);
        assert.deepEqual(countsOf(ofSecond), COUNTS);
        assert.equal(new Set(ofSecond.map(keyOf)).size, ofSecond.length, 'each event once');
        assert.equal(keyOf(ofSecond.at(-1)!), 'run:completed');

        // A flowchart alone: its room, which gets the runs started through the API from their start.
        const watcher = connect();
        const watched = collect(watcher);
        const ack3 = await watcher.timeout(5000).emitWithAck('flowchart:subscribe', { flowchart_id });
        assert.deepEqual(ack3, { ok: true, flowchart_id, flowchart_run_id: null });
        const third = (
          await post(`/api/flowcharts/${flowchart_id}/runs`, { input: { message: 'once more' } })
        ).flowchart_run_id as string;
        await until(() => completed(watched, third), 'the room sees the new run');
        await sleep(150);
        assert.deepEqual(countsOf(watched), COUNTS);
        assert.ok(watched.every((g) => g.body.flowchart_run_id === third && g.body.replayed === undefined));
        // The eager socket is in the flowchart's room too (it subscribed to a run of it): the third run once.
        const eagerThird = eagerGot.filter((g) => g.body.flowchart_run_id === third);
        assert.deepEqual(countsOf(eagerThird), COUNTS);

        // A run this server never watched (executed before anyone asked): replayed whole, without ids.
        const unseen = await createFlowRun(store, kit.engine, flowchart_id, { input: { message: 'unseen' } });
        assert.equal((await kit.engine.continueRun(unseen.flowchart_run_id)).status, 'completed');
        const cold = connect();
        const coldGot = collect(cold);
        const ack4 = await cold.timeout(5000).emitWithAck('flowchart:subscribe', {
          flowchart_id,
          flowchart_run_id: unseen.flowchart_run_id,
        });
        assert.equal(ack4.ok, true);
        await until(() => completed(coldGot, unseen.flowchart_run_id), 'the unseen run is replayed');
        await sleep(100);
        assert.deepEqual(countsOf(coldGot), COUNTS);
        assert.ok(coldGot.every((g) => g.body.replayed === true && g.body.id === null));

        // Bad subscriptions are typed errors and change nothing.
        const bad = async (msg: unknown) =>
          ((await watcher.timeout(5000).emitWithAck('flowchart:subscribe', msg)) as Loose).error.code;
        assert.equal(await bad({ flowchart_id: 'no-such-flowchart' }), 'UNKNOWN_FLOWCHART');
        assert.equal(await bad({}), 'INVALID_INPUT');
        assert.equal(await bad({ flowchart_id, last_event_id: 3 }), 'INVALID_INPUT');
        assert.equal(
          await bad({ flowchart_id, flowchart_run_id: first, last_event_id: -1 }),
          'INVALID_INPUT',
        );
        assert.equal(await bad({ flowchart_id, flowchart_run_id: 'x\u0000' }), 'INVALID_INPUT');
        assert.equal(await bad({ flowchart_id: 'x', flowchart_run_id: first }), 'UNKNOWN_FLOWCHART_RUN');
      } finally {
        for (const s of sockets) s.close();
        await http.close();
        await kit.close();
      }
    }));
});
