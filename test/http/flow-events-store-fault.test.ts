// A flowchart run's live events when the server's store fails a read for a moment: the read that
// resolves an engine event into its seed event (the node run or the artifact it names) is refused once, as a pool
// that cannot hand out a connection or a server restart refuses it. The event still goes out live,
// with its id, rather than being dropped and read back at the run's end without one. A real
// socket.io-client against a real server, on both stores.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { io as ioClient } from 'socket.io-client';
import type { Store } from '../../src/store/store.ts';
import { startNoemaHttp } from '../../src/surfaces/http/start.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { storeOutage } from '../../src/testing/faulty-store.ts';
import { EXAMPLE, EXAMPLE_SCRIPT, flowKit, readJson } from '../../src/testing/flow-kit.ts';
import { testTempDir } from '../../src/testing/temp-dir.ts';
import type { Loose } from './helpers.ts';

const TOKEN = 'flow-store-fault-token-0123456789';
/** The reads that resolve a node's signals: its node run, and an artifact it persisted. */
const READS = [
  /^SELECT \* FROM flowchart_node_runs WHERE node_run_id = \?$/,
  /^SELECT \* FROM node_artifacts WHERE artifact_id = \?$/,
];

/** `store`, whose first read of each kind in READS (outside a transaction) fails as an outage. */
function failingOnce(store: Store): { store: Store; failed: () => number } {
  const failed = new Set<RegExp>();
  const proxy = new Proxy(store, {
    get(target, key) {
      const value = Reflect.get(target, key, target);
      if (key !== 'get') return typeof value === 'function' ? value.bind(target) : value;
      return (sql: string, params?: unknown[]) => {
        const read = READS.find((r) => r.test(sql) && !failed.has(r));
        if (read) {
          failed.add(read);
          return Promise.reject(storeOutage(`a read refused once: ${sql}`));
        }
        return target.get(sql, params as never);
      };
    },
  });
  return { store: proxy, failed: () => failed.size };
}

describeEachStore('flowchart events when a read fails for a moment', (factory) => {
  test('the event whose read failed still goes out live, with its id', async () =>
    factory.withStore(async ({ store }) => {
      const kit = await flowKit(store, readJson(EXAMPLE_SCRIPT));
      const faulty = failingOnce(store);
      const http = await startNoemaHttp({
        store: faulty.store,
        engine: kit.engine,
        host: '127.0.0.1',
        port: 0,
        portSetting: '--port',
        token: TOKEN,
        dataDir: testTempDir('noema-flow-store-fault-'),
      });
      const post = async (path: string, body: unknown) =>
        (await (
          await fetch(`${http.url}${path}`, {
            method: 'POST',
            headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
            body: JSON.stringify(body),
          })
        ).json()) as Loose;
      const socket = ioClient(http.url, {
        auth: { token: TOKEN },
        transports: ['websocket'],
        reconnection: false,
      });
      try {
        const { flowchart_id } = await post('/api/flowcharts', readJson(EXAMPLE));
        const run = (await post(`/api/flowcharts/${flowchart_id}/runs`, { input: { message: 'jam' } }))
          .flowchart_run_id as string;
        const status = async () =>
          (
            (await (
              await fetch(`${http.url}/api/flowcharts/${flowchart_id}/runs/${run}`, {
                headers: { authorization: `Bearer ${TOKEN}` },
              })
            ).json()) as Loose
          ).item.status;
        for (let i = 0; i < 1500 && (await status()) !== 'completed'; i++) await sleep(20);
        assert.equal(await status(), 'completed');
        assert.equal(
          faulty.failed(),
          2,
          'a node run read and an artifact read were refused while the run streamed',
        );

        // What the server sent, replayed: every event with the id it went out with live.
        const got: Loose[] = [];
        socket.on('flowchart.node.updated', (body: Loose) => got.push(body));
        socket.on('flowchart.run.updated', (body: Loose) => got.push(body));
        socket.on('flowchart:node_artifact:persisted', (body: Loose) => got.push(body));
        await socket
          .timeout(5000)
          .emitWithAck('flowchart:subscribe', { flowchart_id, flowchart_run_id: run });
        for (let i = 0; i < 500 && !got.some((g) => g.status === 'completed'); i++) await sleep(20);
        assert.equal(
          got.filter((g) => g.event === 'flowchart.node.updated').length,
          16,
          'every node update, once',
        );
        assert.equal(got.filter((g) => 'artifact_id' in g).length, 5, 'every artifact, once');
        const without = got.filter((g) => !Number.isSafeInteger(g.id));
        assert.deepEqual(without, [], 'every event carries the id it went out with');
      } finally {
        socket.close();
        await http.close();
        await kit.close();
      }
    }));
});
