/**
 * invokeSource when a commit succeeded but its answer was lost (the store reported a retryable
 * fault after committing), for the running row and for the finish, however the store commits them
 * (a statement committed on its own, a synchronous or an asynchronous transaction).
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { describeEachStore } from '../testing/each-store.ts';
import { FaultyStore } from '../testing/faulty-store.ts';
import { getSourceInvocation, invokeSource, putResponseSource } from './index.ts';

/** A JSON service counting the requests it received. */
async function countingService(): Promise<{ url: string; requests: () => number; close: () => void }> {
  let requests = 0;
  const server = createServer((req, res) => {
    requests += 1;
    req.resume();
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      res.end('{"ok":true}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => requests,
    close: () => server.close(),
  };
}

describeEachStore('invokeSource: commits whose answer was lost', (factory) => {
  const setup = async () => {
    const ts = await factory.open();
    const service = await countingService();
    const source = await putResponseSource(ts.store, {
      version: 1,
      interface: { name: 'http_json', method: 'POST', url_env: 'COUNTING_URL', path: '/', timeout_ms: 5000 },
    });
    const faulty = new FaultyStore(ts.store);
    const call = () =>
      invokeSource(faulty, { source, request: {}, kind: 'manual', env: { COUNTING_URL: service.url } });
    // The first call registers the process lease; the calls after it write as the hot path does.
    assert.equal((await call()).ok, true);
    return { ...ts, service, faulty, call };
  };

  test('a finish committed whose answer was lost is found written when tried again: the call succeeds', async () => {
    const { store, dispose, service, faulty, call } = await setup();
    try {
      // The second transaction of the call is its finish (the first commits the running row).
      faulty.arm({ transaction: 2, at: 'after-commit' });
      const out = await call();
      assert.deepEqual(faulty.injected, ['transaction 2 after commit']);
      assert.equal(out.ok, true, out.error?.message);
      assert.equal(out.status, 'succeeded');
      assert.deepEqual(out.output, { ok: true });
      const row = await getSourceInvocation(store, out.source_invocation_id);
      assert.equal(row.status, 'succeeded');
      assert.deepEqual(row.response_json, { ok: true });
      assert.equal(service.requests(), 2, 'one request per call');
    } finally {
      faulty.disarm();
      service.close();
      await dispose();
    }
  });

  test('a running row committed whose answer was lost is finished as not sent, and nothing is sent', async () => {
    const { store, dispose, service, faulty, call } = await setup();
    try {
      faulty.arm({ transaction: 1, at: 'after-commit' });
      await assert.rejects(call(), { code: 'STORE_UNAVAILABLE', retryable: true });
      assert.equal(service.requests(), 1, 'only the first call was sent');
      const rows = await store.all<{ status: string; failure_class: string; failure_message: string }>(
        "SELECT status, failure_class, failure_message FROM source_invocations WHERE status <> 'succeeded'",
      );
      assert.equal(rows.length, 1);
      assert.equal(rows[0]!.status, 'failed');
      assert.equal(rows[0]!.failure_class, 'internal');
      assert.match(rows[0]!.failure_message, /^not sent: recording the call failed/);
    } finally {
      faulty.disarm();
      service.close();
      await dispose();
    }
  });
});
