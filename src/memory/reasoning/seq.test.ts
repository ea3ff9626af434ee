// The reasoning seq per workspace: unique across the store, increasing in commit order within a
// workspace, new blocks past every value handed out (also for workspaces written before blocks).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { migrations } from '../../app/migrations.ts';
import { openStore, parseStoreTarget } from '../../store/open.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import { notesCommit } from './docs/notes.ts';
import { show } from './docs/show.ts';
import { BLOCK_SIZE, currentSeq } from './seq.ts';
import { init } from './workspace-ops.ts';

const note = (store: Parameters<typeof notesCommit>[0], workspace: string, content: string) =>
  notesCommit(store, { workspace, doc: 'notes', content }).then((r) => r.entry.seq);

describeEachStore('reasoning seq per workspace', (factory) => {
  test('concurrent writers on several workspaces: seqs unique across the store, in commit order per workspace', async () => {
    const { store, url, dispose } = await factory.open();
    const other = await openStore(parseStoreTarget(url), { migrations });
    try {
      const spaces = ['w0', 'w1', 'w2', 'w3'];
      for (const workspace of spaces) await init(store, { workspace });
      const seqs = await Promise.all(
        Array.from({ length: 48 }, (_, i) => note(i % 2 ? store : other, spaces[i % 4]!, `n${i}`)),
      );
      assert.equal(new Set(seqs).size, seqs.length, 'a seq was handed out twice');
      for (const workspace of spaces) {
        const { entries } = await show(store, { workspace, doc: 'notes', limit: 100 });
        const got = entries.map((e) => e.seq);
        assert.equal(got.length, 12);
        // Newest first, strictly decreasing; the newest is the workspace's current seq.
        for (let i = 1; i < got.length; i++) assert.ok(got[i - 1]! > got[i]!);
        assert.equal(await currentSeq(store, workspace), got[0]);
      }
    } finally {
      await other.close();
      await dispose();
    }
  });

  test('an exhausted block and a workspace written before blocks both continue past every seq', async () => {
    const { store, dispose } = await factory.open();
    try {
      await init(store, { workspace: 'a' });
      await init(store, { workspace: 'b' });
      const a1 = await note(store, 'a', 'a1');
      const b1 = await note(store, 'b', 'b1');
      assert.ok(b1 >= a1 + BLOCK_SIZE, 'each workspace takes its own block');
      // The block of `a` used up: the next value comes from a new block past b's.
      await store.run('UPDATE reasoning_workspace_seq SET next = block_end + 1 WHERE workspace = ?', ['a']);
      const a2 = await note(store, 'a', 'a2');
      assert.ok(a2 > b1, `${a2} after ${b1}`);
      // Written before migration 342: no counter row; its entries sit below the global counter.
      await store.run('DELETE FROM reasoning_workspace_seq WHERE workspace = ?', ['b']);
      assert.ok((await currentSeq(store, 'b')) >= b1);
      const b2 = await note(store, 'b', 'b2');
      assert.ok(b2 > a2 && b2 > b1);
      assert.equal(await currentSeq(store, 'b'), b2);
    } finally {
      await dispose();
    }
  });
});
