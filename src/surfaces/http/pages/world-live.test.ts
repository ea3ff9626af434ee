/**
 * The world page is drawn from several reads. A turn that commits between them must not leave a page
 * that shows the turn before and is not live — neither its refresh (without JavaScript) nor its stream
 * or watch (with it) would ever show the turn. On every selected store (STORES).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { getWorld } from '../../../runtimes/world/index.ts';
import type { Queryable } from '../../../store/store.ts';
import { openTestStore, selectedStores, type TestStore } from '../../../testing/stores.ts';
import { type ParkKit, startParkKit } from '../../../testing/world-kit.ts';
import { worldPage } from './world.ts';

/** `store`, whose first answer is held back until `meanwhile` has run: another writer commits between two of the page's reads. */
function committingAfterFirstRead(store: Queryable, meanwhile: () => Promise<unknown>): Queryable {
  let pending: Promise<unknown> | null = null;
  const after = async <T>(answer: T): Promise<T> => {
    pending ??= meanwhile();
    await pending;
    return answer;
  };
  return {
    dialect: store.dialect,
    run: (sql, params) => store.run(sql, params),
    all: async (sql, params) => after(await store.all(sql, params)),
    get: async (sql, params) => after(await store.get(sql, params)),
  };
}

for (const kind of selectedStores()) {
  describe(`the world page drawn while a turn commits [${kind}]`, () => {
    let ts: TestStore;
    let kit: ParkKit;

    before(async () => {
      ts = await openTestStore(kind);
      kit = await startParkKit(ts.store);
      await kit.world('park');
      await kit.runtime.runTurn({ world_slug: 'park' });
    });
    after(async () => {
      await kit?.close();
      await ts?.dispose();
    });

    test('a turn committed between the page reads shows as the head, or the page stays live', async () => {
      const store = committingAfterFirstRead(ts.store, () => kit.runtime.runTurn({ world_slug: 'park' }));
      const html = String((await worldPage(store, 'park')).body);
      assert.equal((await getWorld(ts.store, { world_slug: 'park' })).head_turn, 2, 'the turn committed');
      const live = html.includes('data-live-src=');
      const token = /data-live-token="([^"]*)"/.exec(html)?.[1] ?? '';
      assert.ok(
        live || html.includes('<span>turn 2 of 2</span>'),
        `the page is still and shows the turn before: ${/<span>turn \d+ of \d+<\/span>/.exec(html)?.[0]}`,
      );
      assert.match(token, /:committed$/, 'the watch token names the newest attempt as committed');
    });
  });
}
