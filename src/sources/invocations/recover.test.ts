/** Recovery decides by the owner's liveness: an expired lease elsewhere is dead, a fresh one is not. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Store } from '../../store/store.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import { putResponseSource, recoverInterruptedInvocations } from '../index.ts';

async function runningRowOwnedBy(
  store: Store,
  owner: { id: string; host: string; pid: number; heartbeat: number },
) {
  const source = await putResponseSource(store, {
    version: 1,
    interface: { name: 'http_json', method: 'POST', url_env: 'X_URL', path: '/x', timeout_ms: 100 },
  });
  await store.run(
    'INSERT INTO source_processes (process_id, hostname, pid, started_at, heartbeat_at, lease_ms) VALUES (?, ?, ?, ?, ?, ?)',
    [owner.id, owner.host, owner.pid, owner.heartbeat, owner.heartbeat, 30_000],
  );
  await store.run(
    `INSERT INTO source_invocations (source_invocation_id, invocation_seq, source_hash, interface_name, invocation_kind,
       status, started_at, request_json, owner_process_id)
     VALUES (?, 1, ?, 'http_json', 'ambient_context', 'running', ?, '{}', ?)`,
    [`inv-${owner.id}`, source.hash, owner.heartbeat, owner.id],
  );
}

async function statusOf(store: Store, owner: string): Promise<string> {
  const row = await store.get<{ status: string }>(
    'SELECT status FROM source_invocations WHERE owner_process_id = ?',
    [owner],
  );
  return row!.status;
}

describeEachStore('startup recovery', (factory) => {
  test('an owner on another host is dead only once its lease has expired', async () => {
    const { store, dispose } = await factory.open();
    try {
      const now = Date.now();
      await runningRowOwnedBy(store, {
        id: 'stale',
        host: 'elsewhere.example',
        pid: 1,
        heartbeat: now - 60_000,
      });
      await runningRowOwnedBy(store, {
        id: 'fresh',
        host: 'elsewhere.example',
        pid: 1,
        heartbeat: now - 1_000,
      });
      const report = await recoverInterruptedInvocations(store, now);
      assert.deepEqual(report.dead_processes, ['stale']);
      assert.equal(await statusOf(store, 'stale'), 'interrupted');
      assert.equal(await statusOf(store, 'fresh'), 'running');
    } finally {
      await dispose();
    }
  });

  test('a running row whose owner never registered a lease is interrupted', async () => {
    const { store, dispose } = await factory.open();
    try {
      await runningRowOwnedBy(store, { id: 'ghost', host: 'h', pid: 1, heartbeat: Date.now() });
      await store.run("DELETE FROM source_processes WHERE process_id = 'ghost'");
      assert.equal((await recoverInterruptedInvocations(store)).interrupted, 1);
      assert.equal(await statusOf(store, 'ghost'), 'interrupted');
    } finally {
      await dispose();
    }
  });
});
