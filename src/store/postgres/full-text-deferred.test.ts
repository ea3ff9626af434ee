/**
 * PostgreSQL's deferred full-text index with concurrent writers: a writer's commit queues its rows'
 * ids and writes no postings; the store takes a batch of what is queued and committed on a
 * connection of its own shortly after its writes, so a row that commits after a batch stays queued
 * rather than being passed over, and the next batch takes it; a reader's catch-up waits for a batch
 * in flight, then finds every committed row. PostgreSQL only: SQLite has one writer at a time, its ids
 * commit in their order and its batches are its writers' (the shared specs cover both stores'
 * deferred index with one writer).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { incidentSink } from '../../core/incident-log.ts';
import { createTestLocation, selectedStores } from '../../testing/stores.ts';
import type { Store } from '../store.ts';
import { PostgresStore } from './postgres-store.ts';

const skip = !selectedStores().includes('postgres') && 'PostgreSQL is not in STORES';
const INDEX = ['docs', 'id', 'body', ['scope']] as const;

/** A store on a database of its own, taking batches `afterMs` after its writes (null: never). */
async function openStore(afterMs: number | null): Promise<{ store: Store; dispose(): Promise<void> }> {
  const location = await createTestLocation('postgres');
  const store = await PostgresStore.connect({ url: location.url, backgroundIndexAfterMs: afterMs });
  return {
    store,
    dispose: async () => {
      await store.close();
      await location.drop();
    },
  };
}

async function deferredDocs(store: Store): Promise<void> {
  await store.run('CREATE TABLE docs (id BIGSERIAL PRIMARY KEY, scope TEXT NOT NULL, body TEXT NOT NULL)');
  for (const sql of store.dialect.fullText.indexDdl(...INDEX, { deferred: true })) await store.run(sql);
}

const insert = (q: Pick<Store, 'run'>, id: number, body: string) =>
  q.run('INSERT INTO docs (id, scope, body) VALUES (?, ?, ?)', [id, 'a', body]);

/** The ids whose postings hold `word`. */
async function posted(store: Store, word: string): Promise<number[]> {
  const rows = await store.all<{ id: number }>('SELECT id FROM docs_body_words WHERE word = ? ORDER BY id', [
    word,
  ]);
  return rows.map((r) => Number(r.id));
}

async function search(store: Store, text: string): Promise<number[]> {
  for (const sql of store.dialect.fullText.catchUpSql('docs', 'id', 'body')) await store.run(sql);
  const match = store.dialect.fullText.matchQuery({
    table: 'docs',
    id: 'id',
    column: 'body',
    text,
    filters: {},
    limit: 100,
  });
  return (await store.all<{ id: number }>(match!.sql, match!.params))
    .map((r) => Number(r.id))
    .sort((a, b) => a - b);
}

/** A transaction held open until `release` is called; `ready` once `work` has run in it. */
function heldOpen(store: Store, work: (tx: Pick<Store, 'run'>) => Promise<unknown>) {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => {
    release = resolve;
  });
  let ready!: () => void;
  const worked = new Promise<void>((resolve) => {
    ready = resolve;
  });
  const done = store.transaction(async (tx) => {
    await work(tx);
    ready();
    await gate;
  });
  return { worked, release, done };
}

test("no writer's commit writes postings; a batch the store takes after them finds every committed row", {
  skip,
}, async () => {
  const { store, dispose } = await openStore(null);
  try {
    await deferredDocs(store);
    for (let id = 1; id <= 70; id++) await insert(store, id, `apple n${id}`);
    await store.transaction(async (tx) => {
      for (let id = 71; id <= 90; id++) await insert(tx, id, `apple n${id}`);
    });
    // Past the 64th id, where a writer's commit used to take a batch: queued, not indexed.
    assert.deepEqual(await posted(store, 'apple'), []);
    assert.equal(await queued(store), 90);
    assert.deepEqual(await search(store, 'apple'), range(1, 90));
    assert.deepEqual(await posted(store, 'apple'), range(1, 90));
    assert.equal(await queued(store), 0);
  } finally {
    await dispose();
  }
});

test('the store takes a batch after its writes; a row committed after a batch stays queued, and the next batch takes it', {
  skip,
}, async () => {
  const { store, dispose } = await openStore(0);
  // Id 10 is written first and commits last.
  let late: ReturnType<typeof heldOpen> | undefined;
  try {
    await deferredDocs(store);
    late = heldOpen(store, (tx) => insert(tx, 10, 'apple late'));
    await late.worked;
    for (let id = 11; id <= 20; id++) await insert(store, id, `apple n${id}`);
    // A batch after those writes took what was committed: 11 to 20, not 10 (its queue row is not
    // committed, so no batch sees it, and none waits for it).
    await until(async () => (await posted(store, 'apple')).length === 10);
    assert.deepEqual(await posted(store, 'apple'), range(11, 20));
    assert.equal(await queued(store), 0);
    late.release();
    await late.done;
    // The late row's commit is a write of the store: a batch follows it.
    await until(async () => (await queued(store)) === 0);
    assert.deepEqual(await posted(store, 'apple'), range(10, 20));
  } finally {
    await settle(late);
    await dispose();
  }
});

test("a reader's catch-up waits for a batch in flight, then finds its rows", { skip }, async () => {
  const { store, dispose } = await openStore(null);
  let batch: ReturnType<typeof heldOpen> | undefined;
  try {
    await deferredDocs(store);
    for (let id = 1; id <= 64; id++) await insert(store, id, `pear n${id}`);
    // A batch, as the store's background one runs, holds 1 to 64 until its transaction commits.
    batch = heldOpen(store, (tx) => tx.run('SELECT docs_body_words_catch_up(false)'));
    await batch.worked;
    const found = search(store, 'pear');
    // The reader's catch-up waits on the batch's locks rather than answering without its rows.
    const first = await Promise.race([
      waitForLockWait(store).then(() => 'waiting'),
      found.then(() => 'answered'),
    ]);
    assert.equal(first, 'waiting');
    batch.release();
    await batch.done;
    assert.deepEqual(await found, range(1, 64));
  } finally {
    await settle(batch);
    await dispose();
  }
});

test('a closed store takes no batch after it closes', { skip }, async () => {
  const location = await createTestLocation('postgres');
  const writer = await PostgresStore.connect({ url: location.url, backgroundIndexAfterMs: 60_000 });
  const reader = await PostgresStore.connect({ url: location.url, backgroundIndexAfterMs: null });
  try {
    await deferredDocs(writer);
    await insert(writer, 1, 'plum');
    // Its batch was 60 s away: closing cancels it (and does not wait for it).
    await writer.close();
    assert.equal(await queued(reader), 1);
  } finally {
    await writer.close();
    await reader.close();
    await location.drop();
  }
});

test('a batch whose index a migration replaced meanwhile logs nothing, and the next batch finds the new index', {
  skip,
}, async () => {
  const { store, dispose } = await openStore(0);
  const lines: string[] = [];
  const write = incidentSink.write;
  incidentSink.write = (line) => void lines.push(line);
  try {
    await deferredDocs(store);
    await insert(store, 1, 'fig one');
    await until(async () => (await queued(store)) === 0);
    // The index dropped: the batch the next write sets off calls a function that is gone.
    for (const sql of store.dialect.fullText.dropIndexDdl('docs', 'body')) await store.run(sql);
    await insert(store, 2, 'fig two');
    await new Promise((resolve) => setTimeout(resolve, 500));
    for (const sql of store.dialect.fullText.indexDdl(...INDEX, { deferred: true })) await store.run(sql);
    await insert(store, 3, 'fig three');
    await until(async () => (await queued(store)) === 0);
    assert.deepEqual(await posted(store, 'fig'), [1, 2, 3]);
    assert.deepEqual(lines, []);
  } finally {
    incidentSink.write = write;
    await dispose();
  }
});

/** Polls `ok` until it holds (at most 10 s): the store's batch runs on a timer of its own. */
async function until(ok: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await ok())) {
    if (Date.now() > deadline) throw new Error('the background batch did not come');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const queued = async (store: Store): Promise<number> =>
  (await store.get<{ n: number }>('SELECT count(*)::int AS n FROM docs_body_words_pending'))!.n;

/** Ends a held transaction a failed assertion left open, so the store can close. */
async function settle(held: ReturnType<typeof heldOpen> | undefined): Promise<void> {
  held?.release();
  await held?.done.catch(() => {});
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** Until a backend of this database waits for a lock (the reader behind the batch). */
async function waitForLockWait(store: Store): Promise<void> {
  for (;;) {
    const row = await store.get<{ n: number }>(
      "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
    );
    if ((row?.n ?? 0) > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
