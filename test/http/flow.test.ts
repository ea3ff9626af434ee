// Seed 003 over the real HTTP surface: the /api flowchart routes (envelope, request/correlation ids)
// and the three flowchart events over SSE and a real socket.io-client, on both stores.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { io as ioClient } from 'socket.io-client';
import { createFlowchart, createFlowRun } from '../../src/runtimes/flow/index.ts';
import { startNoemaHttp } from '../../src/surfaces/http/start.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { EXAMPLE, EXAMPLE_SCRIPT, flowKit, readJson } from '../../src/testing/flow-kit.ts';
import { connectSse, type SseMessage } from '../../src/testing/sse-client.ts';
import { testTempDir } from '../../src/testing/temp-dir.ts';
import type { Loose } from './helpers.ts';

const TOKEN = 'flow-http-token-0123456789';
const WORKER = fileURLToPath(new URL('../../src/testing/flow-worker.ts', import.meta.url));
const auth = { authorization: `Bearer ${TOKEN}` };

describeEachStore('flowcharts over HTTP', (factory) => {
  test('REST under /api and the three events over SSE and Socket.IO', async () =>
    factory.withStore(async ({ store }) => {
      const kit = await flowKit(store, readJson(EXAMPLE_SCRIPT));
      const http = await startNoemaHttp({
        store,
        engine: kit.engine,
        host: '127.0.0.1',
        port: 0,
        portSetting: '--port',
        token: TOKEN,
        dataDir: testTempDir('noema-flow-http-'),
      });
      const call = async (
        method: string,
        path: string,
        body?: unknown,
        headers: Record<string, string> = {},
      ) => {
        const res = await fetch(`${http.url}${path}`, {
          method,
          headers: {
            ...auth,
            ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
            ...headers,
          },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        });
        return { status: res.status, headers: res.headers, body: (await res.json()) as Loose };
      };
      try {
        const created = await call('POST', '/api/flowcharts', readJson(EXAMPLE));
        assert.equal(created.status, 201);
        assert.equal(created.body.ok, true);
        assert.equal(created.body.request_id, created.headers.get('x-request-id'));
        const id = created.body.flowchart_id as string;

        const bad = await call(
          'POST',
          `/api/flowcharts/${id}/graph`,
          { nodes: [{ node_type: 'plan', config: { mode: 'x' } }], edges: [] },
          { 'x-correlation-id': 'c-1' },
        );
        assert.equal(bad.status, 400);
        assert.deepEqual(Object.keys(bad.body).sort(), [
          'code',
          'correlation_id',
          'details',
          'hint',
          'message',
          'request_id',
          'retryable',
        ]);
        assert.equal(bad.body.correlation_id, 'c-1');
        assert.equal((await call('GET', '/api/flowcharts?limit=1')).body.count, 1);
        assert.equal((await call('GET', '/api/plans/42')).status, 404);
        assert.equal((await fetch(`${http.url}/api/flowcharts`)).status, 401, 'token required');

        // POST …/runs executes in the background with the request's ids on its artifacts.
        const started = await call(
          'POST',
          `/api/flowcharts/${id}/runs`,
          { input: { message: 'jam' } },
          { 'x-correlation-id': 'corr-http' },
        );
        assert.equal(started.status, 202);
        const runId = started.body.flowchart_run_id as string;
        let view = await call('GET', `/api/flowcharts/${id}/runs/${runId}`);
        for (let i = 0; i < 300 && view.body.item.status !== 'completed'; i++) {
          await sleep(20);
          view = await call('GET', `/api/flowcharts/${id}/runs/${runId}`);
        }
        assert.equal(view.body.item.status, 'completed');
        const decisions = await call(
          'GET',
          `/api/flowcharts/${id}/nodes/route/decision-artifacts?flowchart_run_id=${runId}`,
        );
        assert.equal(decisions.body.items[0].request_id, started.body.request_id);
        assert.equal(decisions.body.items[0].correlation_id, 'corr-http');

        // The resource catalog (browser + JSON) lists flowcharts and node artifacts too.
        const catalog = await call('GET', `/node-artifacts?flowchart_run_id=${runId}&limit=2`);
        assert.equal(catalog.status, 200);
        assert.equal(catalog.body.items.length, 2);
        const page2 = await call(
          'GET',
          `/node-artifacts?flowchart_run_id=${runId}&limit=2&cursor=${catalog.body.next_cursor}`,
        );
        assert.ok(page2.body.items[0].artifact_id < catalog.body.items[1].artifact_id, 'keyset pages');
        const detail = await call('GET', `/node-artifacts/${catalog.body.items[0].artifact_id}`);
        assert.equal(detail.body.links.flowchart, `/flowcharts/${encodeURIComponent(id)}`);
        assert.equal((await call('GET', `/flowcharts/${id}`)).body.graph.validation.valid, true);
        const html = await fetch(`${http.url}/node-artifacts?format=html`, { headers: auth });
        assert.equal(html.status, 200);
        assert.match(await html.text(), /Node artifacts/);

        // Events: subscribe to a queued run over SSE and Socket.IO, then execute it.
        const queued = await createFlowRun(store, kit.engine, id, { input: { message: 'jam' } });
        const sse = await connectSse(
          `${http.url}/api/flowcharts/${id}/runs/${queued.flowchart_run_id}/events`,
          auth,
        );
        assert.equal(sse.status, 200);
        const socket = ioClient(http.url, {
          auth: { token: TOKEN },
          transports: ['websocket'],
          reconnection: false,
        });
        const socketEvents: Array<{ name: string; body: Record<string, unknown> }> = [];
        for (const name of [
          'flowchart.node.updated',
          'flowchart.run.updated',
          'flowchart:node_artifact:persisted',
        ])
          socket.on(name, (body: Record<string, unknown>) => socketEvents.push({ name, body }));
        const ack = (await socket.timeout(5000).emitWithAck('flowchart:subscribe', {
          flowchart_id: id,
          flowchart_run_id: queued.flowchart_run_id,
        })) as { ok: boolean };
        assert.equal(ack.ok, true);
        const outcome = await kit.engine.continueRun(queued.flowchart_run_id);
        assert.equal(outcome.status, 'completed');

        const sseEvents: SseMessage[] = [];
        for (;;) {
          const m = await sse.next(10_000);
          assert.ok(m, 'stream open');
          if (m.event === 'resync') assert.fail('unexpected resync');
          sseEvents.push(m);
          if (m.event === 'flowchart.run.updated' && JSON.parse(m.data).status === 'completed') break;
        }
        sse.close();
        const byName = (list: string[]) =>
          Object.fromEntries(
            ['flowchart.node.updated', 'flowchart.run.updated', 'flowchart:node_artifact:persisted'].map(
              (n) => [n, list.filter((x) => x === n).length],
            ),
          );
        assert.deepEqual(byName(sseEvents.map((m) => m.event)), {
          'flowchart.node.updated': 16,
          'flowchart.run.updated': 2,
          'flowchart:node_artifact:persisted': 5,
        });
        const ids = sseEvents.map((m) => Number(m.id));
        assert.deepEqual(
          ids,
          [...ids].sort((a, b) => a - b),
          'ids increase',
        );
        const art = JSON.parse(sseEvents.find((m) => m.event === 'flowchart:node_artifact:persisted')!.data);
        for (const k of [
          'flowchart_id',
          'flowchart_run_id',
          'flowchart_node_id',
          'flowchart_node_type',
          'node_run_id',
          'artifact_id',
          'artifact_type',
          'artifact',
          'request_id',
          'correlation_id',
        ])
          assert.ok(k in art, k);

        for (
          let i = 0;
          i < 250 &&
          !socketEvents.some((e) => e.name === 'flowchart.run.updated' && e.body.status === 'completed');
          i++
        )
          await sleep(20);
        assert.deepEqual(
          byName(socketEvents.map((e) => e.name)),
          byName(sseEvents.map((m) => m.event)),
          'each socket gets each event once',
        );
        const nodeEv = socketEvents.find(
          (e) => e.name === 'flowchart.node.updated' && e.body.status === 'succeeded',
        )!.body;
        for (const k of [
          'flowchart_id',
          'flowchart_run_id',
          'flowchart_node_id',
          'flowchart_node_type',
          'node_run_id',
          'status',
          'execution_index',
          'output_state',
          'routing_state',
          'started_at',
          'finished_at',
          'duration_ms',
        ])
          assert.ok(k in nodeEv, k);
        // The socket is in the flowchart's room: a run started through the API reaches it from its start.
        const again = await call('POST', `/api/flowcharts/${id}/runs`, { input: { message: 'again' } });
        assert.equal(again.status, 202, JSON.stringify(again.body));
        const newRun = again.body.flowchart_run_id as string;
        const seen = () => socketEvents.filter((e) => e.body.flowchart_run_id === newRun);
        for (
          let i = 0;
          i < 300 && !seen().some((e) => e.name === 'flowchart.run.updated' && e.body.status === 'completed');
          i++
        )
          await sleep(20);
        assert.equal(seen().filter((e) => e.name === 'flowchart.node.updated').length, 16);
        assert.equal(seen().filter((e) => e.name === 'flowchart:node_artifact:persisted').length, 5);
        const bad2 = (await socket.timeout(5000).emitWithAck('flowchart:subscribe', {
          flowchart_id: 'x',
          flowchart_run_id: queued.flowchart_run_id,
        })) as { ok: boolean; error: { code: string } };
        assert.equal(bad2.ok, false);
        assert.equal(bad2.error.code, 'UNKNOWN_FLOWCHART_RUN');
        socket.close();
      } finally {
        await http.close();
        await kit.close();
      }
    }));

  test('SSE carries a run executed by another process (PostgreSQL LISTEN/NOTIFY)', async (t) =>
    factory.withStore(async ({ store, url }) => {
      if (!store.capabilities.supportsListenNotify) {
        t.skip('this store delivers events in-process only (no LISTEN/NOTIFY)');
        return;
      }
      const kit = await flowKit(store, readJson(EXAMPLE_SCRIPT));
      const http = await startNoemaHttp({
        store,
        host: '127.0.0.1',
        port: 0,
        portSetting: '--port',
        token: TOKEN,
        dataDir: testTempDir('noema-flow-http-'),
      });
      try {
        const fc = await createFlowchart(store, readJson(EXAMPLE));
        const queued = await createFlowRun(store, kit.engine, fc.flowchart_id, { input: { message: 'jam' } });
        const sse = await connectSse(
          `${http.url}/api/flowcharts/${fc.flowchart_id}/runs/${queued.flowchart_run_id}/events`,
          auth,
        );
        const child = spawn(process.execPath, [WORKER, 'drain'], {
          env: { ...process.env, NOEMA_DB: url, ...kit.env },
          stdio: ['ignore', 'ignore', 'inherit'],
        });
        const exited = new Promise((r) => child.on('exit', r));
        const seen: string[] = [];
        try {
          for (;;) {
            const m = await sse.next(20_000);
            assert.ok(m && m.event !== 'resync', `stream: ${JSON.stringify(m)}`);
            seen.push(m.event);
            if (m.event === 'flowchart.run.updated' && JSON.parse(m.data).status === 'completed') break;
          }
        } finally {
          sse.close();
          child.kill('SIGTERM');
          await exited;
        }
        assert.equal(seen.filter((e) => e === 'flowchart.node.updated').length, 16);
        assert.equal(seen.filter((e) => e === 'flowchart:node_artifact:persisted').length, 5);
      } finally {
        await http.close();
        await kit.close();
      }
    }));
});
