// Concurrent writers on one store (two connections): merges of the same notes copy each note once,
// and notes committed from both sides all land with distinct, increasing seqs.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { migrations } from '../../../app/migrations.ts';
import { openStore, parseStoreTarget } from '../../../store/index.ts';
import { describeEachStore } from '../../../testing/each-store.ts';
import { branchCreate } from '../branch-ops.ts';
import { init } from '../workspace-ops.ts';
import { merge } from './merge.ts';
import { notesCommit } from './notes.ts';
import { show } from './show.ts';

const W = 'cc';

describeEachStore('reasoning log under concurrent writers', (factory) => {
  test('concurrent merges of the same notes copy each note once; concurrent commits all land', async () => {
    const { store, url, dispose } = await factory.open();
    const other = await openStore(parseStoreTarget(url), { migrations });
    try {
      await init(store, { workspace: W });
      await branchCreate(store, { workspace: W, name: 'a' });
      for (let i = 0; i < 30; i++)
        await notesCommit(store, { workspace: W, branch: 'a', doc: 'notes', content: `a${i}` });
      await Promise.all([
        merge(store, { workspace: W, from: 'a', into: 'main' }),
        merge(other, { workspace: W, from: 'a', into: 'main' }),
        merge(store, { workspace: W, from: 'a', into: 'main' }),
        merge(other, { workspace: W, from: 'a', into: 'main' }),
      ]);
      const main = await show(store, { workspace: W, branch: 'main', doc: 'notes', limit: 200 });
      assert.equal(main.entries.length, 30);
      assert.equal(new Set(main.entries.map((e) => e.source_event_id)).size, 30);

      const commits = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          notesCommit(i % 2 ? store : other, { workspace: W, branch: 'a', doc: 'log', content: `c${i}` }),
        ),
      );
      const seqs = commits.map((c) => c.entry.seq);
      assert.equal(new Set(seqs).size, 20);
      const log = await show(store, { workspace: W, branch: 'a', doc: 'log', limit: 50 });
      assert.deepEqual(
        log.entries.map((e) => e.seq),
        [...seqs].sort((x, y) => y - x),
      );
    } finally {
      await other.close();
      await dispose();
    }
  });
});
