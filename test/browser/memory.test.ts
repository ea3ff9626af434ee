/**
 * Reasoning memory in the browser on both stores: a workspace's branches link to pages that show each
 * branch's notes and graph content (text, not counts), a diff between two branches, and a graph merge
 * conflict with its base and both sides; stored text is escaped, bad names are 404 and bad input 400.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { branchCreate, graphApply, graphMerge, init, notesCommit } from '../../src/memory/index.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { startTestHttp, TOKEN } from '../http/helpers.ts';

const html = (url: string) =>
  fetch(url, { headers: { authorization: `Bearer ${TOKEN}`, accept: 'text/html' } }).then(async (r) => ({
    status: r.status,
    text: await r.text(),
  }));

const up = (id: string, title: string) => ({ op: 'node_upsert', id, type: 'hypothesis', title });

describeEachStore('browser: reasoning memory', (factory) => {
  test('branch notes and graph, a diff between branches and a merge conflict with both sides are readable', async () => {
    await factory.withStore(async ({ store }) => {
      const http = await startTestHttp(store);
      try {
        await init(store, { workspace: 'ws' });
        await notesCommit(store, { workspace: 'ws', doc: 'notes', content: 'first note on main' });
        await graphApply(store, {
          workspace: 'ws',
          branch: 'main',
          doc: 'graph',
          ops: [up('a', 'a0'), up('b', 'b0')],
        });
        await branchCreate(store, { workspace: 'ws', name: 'idea', from: 'main' });
        await notesCommit(store, {
          workspace: 'ws',
          branch: 'idea',
          doc: 'notes',
          title: 'a <i>bold</i> idea',
          content: 'the idea: <script>alert(1)</script>',
        });
        await graphApply(store, {
          workspace: 'ws',
          branch: 'idea',
          doc: 'graph',
          ops: [
            up('a', 'a-from-idea'),
            up('n', 'new on idea'),
            { op: 'edge_upsert', from: 'a', rel: 'supports', to: 'n' },
          ],
        });
        await graphApply(store, {
          workspace: 'ws',
          branch: 'main',
          doc: 'graph',
          ops: [up('a', 'a-on-main')],
        });
        const merged = await graphMerge(store, { workspace: 'ws', from: 'idea', into: 'main' });
        assert.equal(merged.conflicts_created, 1);
        const conflictId = merged.conflict_ids![0]!;

        // The tree links each branch and its diff from its base.
        const tree = await html(`${http.url}/memory-workspaces/ws`);
        assert.match(tree.text, /href="\/memory-workspaces\/ws\/branches\/idea"/);
        assert.match(tree.text, /href="\/memory-workspaces\/ws\/diff\?from=main&amp;to=idea"/);

        // A branch: its notes (inherited and its own) and its graph, escaped.
        const idea = await html(`${http.url}/memory-workspaces/ws/branches/idea`);
        assert.equal(idea.status, 200);
        assert.match(idea.text, /first note on main/);
        assert.match(idea.text, /the idea: &lt;script&gt;alert\(1\)&lt;\/script&gt;/);
        assert.match(idea.text, /a &lt;i&gt;bold&lt;\/i&gt; idea/);
        assert.doesNotMatch(idea.text, /<script>alert/);
        assert.match(idea.text, /new on idea/);
        assert.match(idea.text, /<td>supports<\/td>/);
        const ideaJson = (await http.get('/memory-workspaces/ws/branches/idea')).body;
        assert.equal(ideaJson.notes.entries.length, 2);
        assert.deepEqual(ideaJson.graph.nodes.map((n: { id: string }) => n.id).sort(), ['a', 'b', 'n']);

        // main lists the conflict, which links to a page with base, theirs and ours.
        const main = await html(`${http.url}/memory-workspaces/ws/branches/main`);
        assert.match(main.text, new RegExp(`href="/memory-workspaces/ws/conflicts/${conflictId}"`));
        const conflict = await html(`${http.url}/memory-workspaces/ws/conflicts/${conflictId}`);
        assert.equal(conflict.status, 200);
        for (const side of ['a0', 'a-from-idea', 'a-on-main']) assert.match(conflict.text, new RegExp(side));
        assert.match(conflict.text, /theirs \(idea\)/);
        assert.match(conflict.text, /ours \(main\)/);

        // The diff main → idea: idea's note and what of its graph main has not taken.
        const d = await html(`${http.url}/memory-workspaces/ws/diff?from=main&to=idea`);
        assert.equal(d.status, 200);
        assert.match(d.text, /the idea: &lt;script&gt;/);
        assert.doesNotMatch(d.text, /first note on main/);
        // n and its edge were merged into main; the conflicting node a still differs.
        assert.match(d.text, /a-from-idea/);
        assert.doesNotMatch(d.text, /new on idea/);
        const dJson = (await http.get('/memory-workspaces/ws/diff?from=main&to=idea')).body;
        assert.equal(dJson.notes.entries.length, 1);

        // Bad names are 404 pages; a missing or bad parameter is a 400, not a 500.
        assert.equal((await http.get('/memory-workspaces/ws/branches/nowhere')).status, 404);
        assert.equal((await http.get('/memory-workspaces/nowhere/branches/main')).status, 404);
        assert.equal((await http.get('/memory-workspaces/ws/conflicts/nope')).status, 404);
        assert.equal((await http.get('/memory-workspaces/ws/diff?from=main')).status, 400);
        assert.equal((await http.get('/memory-workspaces/ws/branches/main?notes_cursor=x')).status, 400);
      } finally {
        await http.close();
      }
    });
  });

  test('a long branch pages its notes by cursor, each page bounded', async () => {
    await factory.withStore(async ({ store }) => {
      const http = await startTestHttp(store);
      try {
        await init(store, { workspace: 'ws' });
        for (let i = 0; i < 60; i++)
          await notesCommit(store, { workspace: 'ws', doc: 'notes', content: `note ${i}` });
        const first = (await http.get('/memory-workspaces/ws/branches/main')).body;
        assert.equal(first.notes.entries.length, 50);
        const page = await html(`${http.url}/memory-workspaces/ws/branches/main`);
        const more = /href="([^"]*notes_cursor=\d+)"/.exec(page.text);
        assert.ok(more, 'an "older notes" link');
        const second = await html(`${http.url}${more[1]!.replace(/&amp;/g, '&')}`);
        assert.match(second.text, /note 0</);
        assert.doesNotMatch(second.text, /note 59</);
      } finally {
        await http.close();
      }
    });
  });
});
