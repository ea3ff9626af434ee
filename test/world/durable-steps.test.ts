/**
 * A subject's last generation may leave its step to commit with the next subject's first ambient
 * call (`commitsWithNext`): that call's running record commits through the run (`ctx.records`), so
 * the step — the finished generation and its patch — is durable before the request leaves. Checked
 * when the request reaches the toy service, from another connection.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { getWorld } from '../../src/runtimes/world/index.ts';
import { openStore, parseStoreTarget, type Store } from '../../src/store/index.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { startParkKit } from '../../src/testing/world-kit.ts';
import { antThenBobWorld, finalPatch } from './helpers.ts';

/** Journal rows another connection sees committed that stage `subject`'s patch; `blocked` if it waits on a writer. */
async function stagedPatchRows(other: Store, subject: string): Promise<number | 'blocked'> {
  const read = other
    .get<{ n: number | string }>('SELECT COUNT(*) AS n FROM engine_journal WHERE body LIKE ?', [
      `%"subject_entity_id":"${subject}"%`,
    ])
    .then((r) => Number(r?.n ?? 0));
  const timeout = new Promise<'blocked'>((r) => setTimeout(() => r('blocked'), 3000).unref());
  return Promise.race([read, timeout]);
}

describeEachStore('world steps durable before the next call', (factory) => {
  test('the step of a subject’s final generation is committed when the next subject’s ambient request arrives', async () => {
    await factory.withStore(async ({ store, url }) => {
      const other = await openStore(parseStoreTarget(url));
      const seen: Array<number | 'blocked'> = [];
      const kit = await startParkKit(store, {
        script: { rules: [], default: finalPatch('Nothing happens.') },
        onToyRequest: async ({ path }) => {
          if (path === '/inbox') seen.push(await stagedPatchRows(other, 'ant'));
        },
      });
      try {
        // The ant's final step commits with the running record of Bob's inbox call.
        await antThenBobWorld(kit, 'w');
        const r = await kit.runtime.runTurn({ world_slug: 'w' });
        assert.equal(r.status, 'committed', JSON.stringify(r.failure));
        assert.deepEqual(
          r.patches.map((p) => p.subject_entity_id),
          ['ant', 'bob'],
        );
        assert.deepEqual(seen, [1], 'the ant’s step was committed when Bob’s inbox request arrived');
        assert.equal((await getWorld(store, { world_slug: 'w' })).head_turn, 1);
      } finally {
        await kit.close();
        await other.close();
      }
    });
  });
});
