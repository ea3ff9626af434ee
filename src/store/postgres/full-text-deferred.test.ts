/**
 * PostgreSQL's deferred full-text index with concurrent writers: a writer's commit queues its rows'
 * ids and writes no postings; a batch (the insert of every 64th id) takes what is queued and
 * committed, so a row that commits after a higher id's batch stays queued rather than being passed
 * over; and a reader's catch-up waits for a batch in flight, then finds every committed row.
 * PostgreSQL only: SQLite has one writer at a time, its ids commit in their order (the shared specs
 * cover both stores' deferred index with one writer).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { openTestStore, selectedStores } from '../../testing/stores.ts';
import type { Store } from '../store.ts';

const skip = !selectedStores().includes('postgres') && 'PostgreSQL is not in STORES';
const INDEX = ['docs', 'id', 'body', ['scope']] as const;

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

test('a row committed after a higher id was batched is still indexed, and no writer commit writes postings', {
  skip,
}, async () => {
  const { store, dispose } = await openTestStore('postgres', null);
  // Id 10 is written first and commits last.
  let late: ReturnType<typeof heldOpen> | undefined;
  try {
    await deferredDocs(store);
    late = heldOpen(store, (tx) => insert(tx, 10, 'apple late'));
    await late.worked;
    for (let id = 11; id <= 64; id++) await insert(store, id, `apple n${id}`);
    // Id 64's commit took the batch of what was queued and committed: 11 to 64, not 10.
    assert.deepEqual(await posted(store, 'apple'), range(11, 64));
    late.release();
    await late.done;
    for (let id = 65; id <= 70; id++) await insert(store, id, `apple n${id}`);
    // Committed, queued, not indexed: their commits wrote no postings.
    assert.deepEqual(await posted(store, 'apple'), range(11, 64));
    assert.deepEqual(await search(store, 'apple'), range(10, 70));
    assert.deepEqual(await posted(store, 'apple'), range(10, 70));
    const queued = await store.get<{ n: number }>('SELECT count(*)::int AS n FROM docs_body_words_pending');
    assert.equal(queued?.n, 0);
  } finally {
    await settle(late);
    await dispose();
  }
});

test("a reader's catch-up waits for a batch in flight, then finds its rows", { skip }, async () => {
  const { store, dispose } = await openTestStore('postgres', null);
  let batch: ReturnType<typeof heldOpen> | undefined;
  try {
    await deferredDocs(store);
    for (let id = 1; id <= 63; id++) await insert(store, id, `pear n${id}`);
    // Id 64's batch takes 1 to 64 and holds them until its transaction commits.
    batch = heldOpen(store, (tx) => insert(tx, 64, 'pear n64'));
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
