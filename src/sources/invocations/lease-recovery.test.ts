/** A live process whose lease another process's recovery took for expired: it notices, re-registers, carries on. */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { openStore, parseStoreTarget } from '../../store/index.ts';
import type { Store } from '../../store/store.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import {
  getSourceInvocation,
  invokeSource,
  putResponseSource,
  recoverInterruptedInvocations,
} from '../index.ts';
import { ownProcessId } from './process-lease.ts';

/** An upstream that holds each request until the test lets it answer. */
async function gatedServer() {
  const waiting: Array<() => void> = [];
  let arrived: () => void = () => {};
  const server: Server = createServer((req, res) => {
    req.resume();
    waiting.push(() => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ok":true}');
    });
    arrived();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    server,
    /** Resolves once a request is held by the server. */
    nextArrival: () =>
      new Promise<void>((r) => {
        arrived = r;
      }),
    releaseAll: () => {
      for (const answer of waiting.splice(0)) answer();
    },
  };
}

/** What another process's startup recovery does when this process's lease looks expired. */
async function recoverElsewhere(store: Store, url: string, processId: string): Promise<void> {
  await store.run('UPDATE source_processes SET hostname = ?, heartbeat_at = ? WHERE process_id = ?', [
    'elsewhere.example',
    Date.now() - 120_000,
    processId,
  ]);
  const other = await openStore(parseStoreTarget(url));
  try {
    await recoverInterruptedInvocations(other);
  } finally {
    await other.close();
  }
}

describeEachStore('process lease after recovery elsewhere', (factory) => {
  test('an interrupted call reports SOURCE_INTERRUPTED, and the next call re-registers and is not interrupted', async () => {
    const { store, url, dispose } = await factory.open();
    const upstream = await gatedServer();
    try {
      const source = await putResponseSource(store, {
        version: 1,
        interface: { name: 'http_json', method: 'POST', url_env: 'GATE_URL', path: '/x', timeout_ms: 10_000 },
      });
      const call = () =>
        invokeSource(store, {
          source,
          request: {},
          kind: 'ambient_context',
          env: { GATE_URL: upstream.url },
        });

      let arrival = upstream.nextArrival();
      const first = call();
      await arrival;
      const processId = ownProcessId(store);
      assert.ok(processId);
      await recoverElsewhere(store, url, processId);
      upstream.releaseAll();
      const out1 = await first;
      assert.equal(out1.ok, false);
      assert.equal(out1.status, 'interrupted');
      assert.equal(out1.error?.code, 'SOURCE_INTERRUPTED');
      assert.equal(out1.output, undefined);
      assert.equal((await getSourceInvocation(store, out1.source_invocation_id)).status, 'interrupted');

      arrival = upstream.nextArrival();
      const second = call();
      await arrival;
      const lease = await store.get<{ hostname: string }>(
        'SELECT hostname FROM source_processes WHERE process_id = ?',
        [processId],
      );
      assert.ok(lease, 'the process registered its lease again');
      assert.notEqual(lease.hostname, 'elsewhere.example');
      // A recovery now sees a live owner and leaves the call alone.
      const other = await openStore(parseStoreTarget(url));
      try {
        assert.deepEqual((await recoverInterruptedInvocations(other)).dead_processes, []);
      } finally {
        await other.close();
      }
      upstream.releaseAll();
      const out2 = await second;
      assert.equal(out2.ok, true, out2.error?.message);
      assert.equal(out2.status, 'succeeded');
      assert.equal((await getSourceInvocation(store, out2.source_invocation_id)).status, 'succeeded');
    } finally {
      upstream.server.close();
      await dispose();
    }
  });
});
