/**
 * Run events to clients: SSE (`id:` = the engine's per-run seq, resume with Last-Event-ID, resync,
 * heartbeats, clean close) and Socket.IO (authenticated handshake, a room per run), with real
 * clients — in one process on both stores, and across two processes on PostgreSQL.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { io as ioClient, type Socket } from 'socket.io-client';
import { createEngine, type EngineEvent } from '../../src/engine/index.ts';
import { startNoemaHttp } from '../../src/surfaces/http/start.ts';
import { startCli } from '../../src/testing/cli.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { humanGraph, registerKit } from '../../src/testing/engine-kit.ts';
import { connectSse, type SseConnection, type SseMessage } from '../../src/testing/sse-client.ts';
import { testTempDir } from '../../src/testing/temp-dir.ts';
import { TOKEN } from './helpers.ts';

const AUTH = { authorization: `Bearer ${TOKEN}` };

/** Reads SSE messages until `until` matches one (bounded by the client's per-message timeout). */
async function readUntil(
  sse: SseConnection,
  until: (m: SseMessage) => boolean,
  max = 50,
): Promise<SseMessage[]> {
  const out: SseMessage[] = [];
  for (let i = 0; i < max; i++) {
    const m = await sse.next();
    assert.ok(m, `the stream ended early after ${JSON.stringify(out.map((x) => x.event))}`);
    out.push(m);
    if (until(m)) return out;
  }
  throw new Error(`no matching message in ${max}`);
}

const isStatus = (status: string) => (m: SseMessage) =>
  m.event === 'run.updated' && JSON.parse(m.data).status === status;

/** Collects Socket.IO engine events of the client until `until` matches one. */
function collectSocket(
  socket: Socket,
  until: (e: EngineEvent) => boolean,
  timeoutMs = 10_000,
): Promise<Array<EngineEvent & { id: number }>> {
  const seen: Array<EngineEvent & { id: number }> = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`socket: no match; saw ${seen.map((e) => e.type)}`)),
      timeoutMs,
    );
    socket.onAny((name: string, payload: EngineEvent & { id: number }) => {
      if (name === 'resync' || typeof payload?.seq !== 'number') return;
      seen.push(payload);
      if (until(payload)) {
        clearTimeout(timer);
        socket.offAny();
        resolve(seen);
      }
    });
  });
}

async function connectSocket(url: string, auth: Record<string, string>): Promise<Socket> {
  const socket = ioClient(url, { auth, transports: ['websocket'], reconnection: false, timeout: 5_000 });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', (err) => reject(err));
  });
  return socket;
}

describeEachStore('run events over SSE and Socket.IO (one process)', (factory) => {
  test('ids are the run seq; resume replays what followed; unknown resume point → resync; heartbeats; clean close', async () => {
    const { store, dispose } = await factory.open();
    const engine = createEngine(store, { fanOut: false });
    registerKit(engine);
    const http = await startNoemaHttp({
      store,
      engine,
      host: '127.0.0.1',
      port: 0,
      portSetting: '--port',
      token: TOKEN,
      dataDir: testTempDir('noema-events-'),
      heartbeatMs: 50,
    });
    const sockets: Socket[] = [];
    try {
      const { run_id } = await engine.createRun(humanGraph);
      const base = `${http.url}/runs/${run_id}/events`;
      assert.equal((await connectSse(`${http.url}/runs/nope/events`, AUTH)).status, 404);
      assert.equal((await connectSse(base, { ...AUTH, 'last-event-id': 'x' })).status, 400);
      assert.equal((await connectSse(base)).status, 401);

      const sse = await connectSse(base, AUTH);
      assert.equal(sse.status, 200);
      await assert.rejects(connectSocket(http.url, { token: 'wrong-token-wrong-token' }), /UNAUTHORIZED/);
      const socket = await connectSocket(http.url, { token: TOKEN });
      sockets.push(socket);
      const bad = await socket.emitWithAck('subscribe', { run_id: 'nope' });
      assert.equal(bad.ok, false);
      assert.equal(bad.error.code, 'UNKNOWN_RUN');
      assert.deepEqual(await socket.emitWithAck('subscribe', { run_id }), { ok: true, run_id });
      const socketWaiting = collectSocket(socket, (e) => e.type === 'run.updated' && e.status === 'waiting');

      assert.equal((await engine.continueRun(run_id)).status, 'waiting');
      const live = await readUntil(sse, isStatus('waiting'));
      const ids = live.map((m) => Number(m.id));
      assert.deepEqual(
        ids,
        live.map((m) => JSON.parse(m.data).seq),
        'id: is the event seq',
      );
      assert.deepEqual(
        [...ids].sort((a, b) => a - b),
        ids,
        'in seq order',
      );
      assert.equal(new Set(ids).size, ids.length);
      assert.deepEqual(
        (await socketWaiting).map((e) => e.id),
        ids,
        'the socket room gets the same events',
      );

      // Resume after the first event: the rest is replayed in order.
      const resumed = await connectSse(base, { ...AUTH, 'last-event-id': String(ids[0]) });
      const replay = await readUntil(resumed, isStatus('waiting'));
      assert.deepEqual(
        replay.map((m) => Number(m.id)),
        ids.slice(1),
      );
      // A resume point this process never sent: resync, then live events.
      const lost = await connectSse(base, { ...AUTH, 'last-event-id': '1' });
      const first = await lost.next();
      assert.equal(first?.event, 'resync');
      assert.equal(JSON.parse(first!.data).href, `/runs/${run_id}`);
      assert.equal(lost.retryMs(), 2000);

      await new Promise((r) => setTimeout(r, 150));
      assert.ok(sse.comments().includes('heartbeat'), 'heartbeats keep the stream alive');

      const socketDone = collectSocket(socket, (e) => e.type === 'run.updated' && e.status === 'completed');
      const waiting = (await engine.getRun(run_id)).pending_executions[0]!;
      assert.equal(
        (await engine.resume(run_id, waiting.contract_id, { approved: true })).status,
        'completed',
      );
      const done = await readUntil(sse, isStatus('completed'));
      assert.ok(Number(done[0]!.id) > ids.at(-1)!);
      assert.ok((await socketDone).length > 0);

      // Shutdown ends the streams cleanly and disconnects sockets.
      const disconnected = new Promise<string>((resolve) => socket.once('disconnect', resolve));
      await http.close();
      assert.equal(await sse.next(3_000), null, 'the SSE stream ends');
      assert.equal(await disconnected, 'io server disconnect');
    } finally {
      for (const s of sockets) s.close();
      await http.close().catch(() => {});
      await engine.close();
      await dispose();
    }
  });
});

describeEachStore('run events across processes', (factory) => {
  test('a run advanced in this process streams to SSE and Socket.IO clients of a `noema serve` process, with the same seqs', {
    skip:
      factory.kind === 'sqlite'
        ? 'SQLite has no cross-process fan-out (LISTEN/NOTIFY); one-process streams are specified above'
        : false,
  }, async () => {
    const { store, url, dispose } = await factory.open();
    const engine = createEngine(store, { fanOut: true });
    registerKit(engine);
    const server = startCli(['serve', '--port', '0'], {
      NOEMA_DB: url,
      NOEMA_TOKEN: TOKEN,
      NOEMA_DATA_DIR: testTempDir('noema-ev2-'),
    });
    let socket: Socket | null = null;
    try {
      const [, base] = await server.waitFor(/serving on (http:\/\/\S+)/);
      const { run_id } = await engine.createRun(humanGraph);
      const local: number[] = [];
      const unsubscribe = await engine.subscribe(run_id, (e) => local.push(e.seq));
      const sse = await connectSse(`${base}/runs/${run_id}/events`, AUTH);
      assert.equal(sse.status, 200);
      socket = await connectSocket(base as string, { token: TOKEN });
      assert.equal((await socket.emitWithAck('subscribe', { run_id })).ok, true);
      const socketEvents = collectSocket(socket, (e) => e.type === 'run.updated' && e.status === 'waiting');

      assert.equal((await engine.continueRun(run_id)).status, 'waiting');
      const remote = await readUntil(sse, isStatus('waiting'));
      const committed = remote.map((m) => Number(m.id));
      assert.ok(committed.length >= 2);
      for (const id of committed) assert.ok(local.includes(id), `seq ${id} is the same in both processes`);
      assert.deepEqual(
        (await socketEvents).map((e) => e.id),
        committed,
      );
      await unsubscribe();
      await engine.close(); // only the serve process listens now

      // The serve process's LISTEN connection drops: its clients are told to resync, not left stale.
      const socketResync = new Promise<{ reason: string }>((resolve) => socket!.once('resync', resolve));
      await store.all(
        `SELECT pg_terminate_backend(pid) AS killed FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE 'LISTEN%'`,
      );
      const resync = await sse.next(15_000);
      assert.equal(resync?.event, 'resync', server.stderr());
      assert.equal(JSON.parse(resync!.data).reason, 'listener_reconnected');
      assert.equal((await socketResync).reason, 'listener_reconnected');

      server.child.kill('SIGTERM');
      assert.equal(await sse.next(5_000), null, 'SIGTERM ends the stream cleanly');
      assert.equal(await server.exited, 0);
    } finally {
      socket?.close();
      server.child.kill('SIGKILL');
      await engine.close();
      await dispose();
    }
  });
});
