/** The running row's `invocation_seq`: the number this process expects next is checked, never trusted. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { uuidv7 } from '../../core/ids.ts';
import type { Store } from '../../store/store.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import { toySources } from '../../testing/toys/index.ts';
import { putResponseSource } from '../index.ts';
import { createRedactor } from '../redact.ts';
import type { InvocationLinks } from '../source.ts';
import { insertRunning } from './record.ts';

const redactor = createRedactor([]);

async function running(store: Store, source_hash: string, links: InvocationLinks, rollBack = false) {
  const inv = {
    source_invocation_id: uuidv7(),
    source_hash,
    interface_name: 'http_json',
    invocation_kind: 'ambient_context' as const,
    links,
    input_schema_hash: null,
    output_schema_hash: null,
    llm_call_id: null,
    request_json: {},
    metadata: {},
    started_at: Date.now(),
    owner_process_id: 'test',
  };
  let seq = 0;
  await store
    .transaction(async (tx) => {
      seq = await insertRunning(tx, inv, redactor);
      if (rollBack) throw new Error('rolled back');
    })
    .catch((err: Error) => {
      if (err.message !== 'rolled back') throw err;
    });
  return seq;
}

describeEachStore('invocation_seq allocation', (factory) => {
  for (const scope of ['attempt', 'run'] as const) {
    test(`a rolled-back number is taken again, and one another writer took is skipped (${scope})`, async () => {
      const { store, dispose } = await factory.open();
      try {
        const { hash } = await putResponseSource(store, toySources.weather);
        const id = `${scope}-${uuidv7()}`;
        const links: InvocationLinks = scope === 'attempt' ? { attempt_id: id } : { run_id: id };
        // This process now expects 2 next; the row that took 1 is rolled back.
        assert.equal(await running(store, hash, links, true), 1);
        assert.equal(await running(store, hash, links), 1);
        assert.equal(await running(store, hash, links), 2);
        // Another writer (its number given, as a process that does not share this one's memory) takes 3.
        assert.equal(await running(store, hash, { ...links, invocation_seq: 3 }), 3);
        assert.equal(await running(store, hash, links), 4);
        assert.equal(await running(store, hash, links), 5);
        const seqs = await store.all<{ invocation_seq: number | string }>(
          `SELECT invocation_seq FROM source_invocations WHERE ${scope === 'attempt' ? 'attempt_id' : 'run_id'} = ?
           ORDER BY invocation_seq`,
          [id],
        );
        assert.deepEqual(
          seqs.map((r) => Number(r.invocation_seq)),
          [1, 2, 3, 4, 5],
        );
      } finally {
        await dispose();
      }
    });
  }
});
