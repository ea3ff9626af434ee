/** The process lease's heartbeat: a failing beat is logged once per incident and does not stop the heartbeat. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { incidentSink } from '../../core/incident-log.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import { FaultyStore } from '../../testing/faulty-store.ts';
import { waitUntil } from '../../testing/wait.ts';
import { processLease } from './process-lease.ts';

describeEachStore('source process lease heartbeat', (factory) => {
  test('a heartbeat that keeps failing is logged once; once it works again, a new failure is logged again', async (t) => {
    await factory.withStore(async ({ store }) => {
      const faulty = new FaultyStore(store);
      const lines: string[] = [];
      const write = incidentSink.write;
      incidentSink.write = (line) => void lines.push(line);
      t.mock.timers.enable({ apis: ['setInterval'] });
      const lease = processLease(faulty);
      const release = lease.hold();
      try {
        const beats = () => faulty.counts.statements;
        const tick = async (n: number) => {
          const before = beats();
          t.mock.timers.tick(10_000);
          await waitUntil(`heartbeat ${n}`, () => beats() > before, { timeoutMs: 5000 });
          await new Promise((r) => setImmediate(r));
        };
        faulty.arm({ matching: /^UPDATE source_processes SET heartbeat_at/ });
        for (let i = 1; i <= 3; i++) await tick(i);
        assert.equal(faulty.injected.length, 3, 'the heartbeat kept beating through failures');
        assert.equal(lines.length, 1, lines.join('\n'));
        assert.match(
          lines[0]!,
          new RegExp(`source process lease ${lease.processId} .*heartbeat failed \\(STORE_UNAVAILABLE`),
        );
        faulty.disarm();
        await tick(4);
        // This beat's lease row was never registered: it inserts it after the update; let it finish.
        await waitUntil('the successful beat to finish', async () => {
          const row = await store.get('SELECT 1 AS x FROM source_processes WHERE process_id = ?', [
            lease.processId,
          ]);
          return row !== undefined;
        });
        await new Promise((r) => setTimeout(r, 20));
        faulty.arm({ matching: /^UPDATE source_processes SET heartbeat_at/ });
        await tick(5);
        assert.equal(lines.length, 2, 'a new incident after a successful beat is logged');
      } finally {
        release();
        t.mock.timers.reset();
        incidentSink.write = write;
      }
    });
  });
});
