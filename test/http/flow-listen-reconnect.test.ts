// A LISTEN connection terminated while a run streams (PostgreSQL `57P01 terminating connection due to
// administrator command`): a socket subscribed to the run still gets every seed event exactly once —
// those missed while the listener was down are read back from the store, none is sent twice.
// PostgreSQL only: events reach another process through LISTEN/NOTIFY only there; SQLite stores are
// embedded in one process, whose events never cross a connection that could be terminated.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { io as ioClient } from 'socket.io-client';
import type { ModelScript } from '../../src/dev/scripted-model/index.ts';
import { createFlowchart, createFlowRun } from '../../src/runtimes/flow/index.ts';
import { startNoemaHttp } from '../../src/surfaces/http/start.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { EXAMPLE, EXAMPLE_SCRIPT, flowKit, readJson } from '../../src/testing/flow-kit.ts';
import { terminateListeners } from '../../src/testing/pg-faults.ts';
import { testTempDir } from '../../src/testing/temp-dir.ts';
import type { Loose } from './helpers.ts';

const TOKEN = 'flow-listen-token-0123456789';
const WORKER = fileURLToPath(new URL('../../src/testing/flow-worker.ts', import.meta.url));
const NAMES = ['flowchart.node.updated', 'flowchart.run.updated', 'flowchart:node_artifact:persisted'];

type Got = { name: string; body: Loose };
const keyOf = (g: Got) =>
  g.name === 'flowchart.run.updated'
    ? `run:${g.body.status}`
    : g.name === 'flowchart.node.updated'
      ? `node:${g.body.node_run_id}:${g.body.status}`
      : `artifact:${g.body.artifact_id}`;

/** The example's script, each model reply slowed so the run streams for a while. */
function slowScript(): ModelScript {
  const script = readJson(EXAMPLE_SCRIPT) as ModelScript;
  return { ...script, rules: script.rules.map((r) => ({ ...r, reply: { ...r.reply, delay_ms: 250 } })) };
}

describeEachStore('flowchart events across a LISTEN reconnect', (factory) => {
  test('the listener terminated while a run streams: each event once, none missing', async (t) =>
    factory.withStore(async ({ store, url }) => {
      if (!store.capabilities.supportsListenNotify) {
        t.skip('events cross processes through LISTEN/NOTIFY only on PostgreSQL');
        return;
      }
      const kit = await flowKit(store, slowScript());
      const http = await startNoemaHttp({
        store,
        host: '127.0.0.1',
        port: 0,
        portSetting: '--port',
        token: TOKEN,
        dataDir: testTempDir('noema-flow-listen-'),
      });
      const socket = ioClient(http.url, {
        auth: { token: TOKEN },
        transports: ['websocket'],
        reconnection: false,
      });
      const got: Got[] = [];
      for (const name of NAMES) socket.on(name, (body: Loose) => got.push({ name, body }));
      const done = () => got.some((g) => keyOf(g) === 'run:completed');
      let child: ReturnType<typeof spawn> | null = null;
      try {
        const fc = await createFlowchart(store, readJson(EXAMPLE));
        const queued = await createFlowRun(store, kit.engine, fc.flowchart_id, { input: { message: 'jam' } });
        const ack = await socket.timeout(5000).emitWithAck('flowchart:subscribe', {
          flowchart_id: fc.flowchart_id,
          flowchart_run_id: queued.flowchart_run_id,
        });
        assert.equal(ack.ok, true);
        // Another process executes the run: its events reach this server through LISTEN only.
        child = spawn(process.execPath, [WORKER, 'drain'], {
          env: { ...process.env, NOEMA_DB: url, ...kit.env },
          stdio: ['ignore', 'ignore', 'inherit'],
        });
        // The listener's backend is terminated again and again while the run streams (bounded).
        let terminated = 0;
        for (let i = 0; i < 200 && !done(); i++) {
          if (got.length > 0 && i % 8 === 0) terminated += await terminateListeners(url);
          await sleep(50);
        }
        for (let i = 0; i < 200 && !done(); i++) await sleep(50);
        assert.ok(done(), `the run completed: ${got.map(keyOf)}`);
        assert.ok(terminated >= 2, `the listener was terminated while the run streamed (${terminated})`);
        await sleep(300);
        const keys = got.map(keyOf);
        const twice = keys.filter((k, i) => keys.indexOf(k) !== i);
        assert.deepEqual(twice, [], 'no event twice');
        assert.deepEqual(
          Object.fromEntries(NAMES.map((n) => [n, got.filter((g) => g.name === n).length])),
          {
            'flowchart.node.updated': 16,
            'flowchart.run.updated': 2,
            'flowchart:node_artifact:persisted': 5,
          },
          'every event',
        );
        assert.equal(keys.at(-1), 'run:completed');
      } finally {
        socket.close();
        if (child) {
          const exited = new Promise((r) => child!.on('exit', r));
          child.kill('SIGTERM');
          await exited;
        }
        await http.close();
        await kit.close();
      }
    }));
});
