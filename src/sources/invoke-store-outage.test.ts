/**
 * The store unreachable when a call's result is to be recorded, for longer than the finish's own
 * retries (a database restart, a failover): the call's outcome is the store fault, never a failure of
 * the call. Recorded as `failed`/`internal` instead, the call's contract would fail and its run with
 * it, as soon as the database answered again; handed the store fault, the engine leaves the run for
 * another attempt, which makes the call again. The row is marked `interrupted` once the store answers.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NoemaError } from '../core/errors.ts';
import { startToyServices, toySources } from '../dev/toys/index.ts';
import type { Store } from '../store/store.ts';
import { describeEachStore } from '../testing/each-store.ts';
import { refusingStore } from '../testing/refusing-store.ts';
import { waitUntil } from '../testing/wait.ts';
import { getSourceInvocation, invokeSource, putResponseSource } from './index.ts';

/** The error a PostgreSQL store gives for a terminated connection (see translate-error.ts). */
const unreachable = () =>
  new NoemaError('STORE_UNAVAILABLE', 'PostgreSQL is unreachable: terminating connection', {
    retryable: true,
    status: 503,
  });

/**
 * `store`, refusing every statement that finishes an invocation as unreachable while `outage.down`
 * (however it is sent), and counting the refusals. Reads and other writes go through.
 */
function duringOutage(store: Store, outage: { down: boolean; refused: number; after: number }): Store {
  return refusingStore(store, (sql) => {
    if (!outage.down || !sql.startsWith('UPDATE source_invocations SET status')) return null;
    outage.refused += 1;
    // The database answers again after this many refusals (the finish's first try and its retries).
    if (outage.refused >= outage.after) outage.down = false;
    return unreachable();
  });
}

describeEachStore('invokeSource with the store unreachable at its finish', (factory) => {
  test('hands the caller the store fault, not a failed call, and marks the row interrupted once the store answers', async () => {
    const { store, dispose } = await factory.open();
    const toys = await startToyServices();
    try {
      const source = await putResponseSource(store, toySources.weather);
      // Longer than the finish's retries: the first try and three more are refused, and the
      // database is back for whatever is written after them.
      const outage = { down: true, refused: 0, after: 4 };
      const call = invokeSource(duringOutage(store, outage), {
        source,
        request: { turn: 1 },
        kind: 'ambient_context',
        env: toys.env,
      });
      await assert.rejects(call, (err: NoemaError) => {
        assert.equal(err.code, 'STORE_UNAVAILABLE');
        assert.equal(err.retryable, true);
        return true;
      });
      assert.equal(outage.refused, 4, 'every finish attempt met the outage');
      const rows = await store.all<{ source_invocation_id: string }>(
        'SELECT source_invocation_id FROM source_invocations',
      );
      assert.equal(rows.length, 1);
      const id = rows[0]!.source_invocation_id;
      // Never a failure of the call: that is what would fail the run that made it.
      await waitUntil(
        'the row marked interrupted',
        async () => (await getSourceInvocation(store, id)).status !== 'running',
        { timeoutMs: 10_000, intervalMs: 50 },
      );
      const inv = await getSourceInvocation(store, id);
      assert.equal(inv.status, 'interrupted');
      assert.equal(inv.failure_class, 'interrupted');
      assert.match(String(inv.failure_message), /could not be recorded/);
    } finally {
      await toys.close();
      await dispose();
    }
  });
});
