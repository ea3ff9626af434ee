/**
 * Reads through a memory map of the database file (SQLite only: `PRAGMA mmap_size` is SQLite's; a
 * PostgreSQL store's pages are the server's). A store maps SQLITE_MMAP_BYTES unless told otherwise,
 * and what another connection writes, once checkpointed into the file (growing it past what the
 * reader had mapped, rewriting pages it had read), reads back exactly through the map.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { test } from 'node:test';
import { testTempDir } from '../../testing/temp-dir.ts';
import { SQLITE_MMAP_BYTES, SqliteStore } from './sqlite-store.ts';

const mapped = async (store: SqliteStore) =>
  Number((await store.get<{ mmap_size: number | bigint }>('PRAGMA mmap_size'))?.mmap_size);

test('a store reads its file through a map of SQLITE_MMAP_BYTES; mmapBytes sets it, 0 turns it off', async () => {
  const dir = testTempDir('noema-mmap-');
  const stores = [
    new SqliteStore({ path: join(dir, 'a.db') }),
    new SqliteStore({ path: join(dir, 'b.db'), mmapBytes: 1 << 20 }),
    new SqliteStore({ path: join(dir, 'c.db'), mmapBytes: 0 }),
    new SqliteStore({ path: join(dir, 'd.db'), mmapBytes: Number.NaN }),
  ];
  try {
    assert.deepEqual(await Promise.all(stores.map(mapped)), [SQLITE_MMAP_BYTES, 1 << 20, 0, 0]);
  } finally {
    for (const s of stores) await s.close();
  }
});

test('values another connection writes, checkpointed into a growing file, read back exactly through the map', async () => {
  const dir = testTempDir('noema-mmap-');
  const path = join(dir, 'n.db');
  const writer = new SqliteStore({ path, mmapBytes: 0 });
  // Mapped small, so the file soon outgrows what the reader maps and is read past it as well.
  const reader = new SqliteStore({ path, mmapBytes: 256 * 1024 });
  try {
    await writer.run('CREATE TABLE t (id INTEGER PRIMARY KEY, body BLOB NOT NULL)');
    const written = new Map<number, Buffer>();
    const readAll = async () => {
      const rows = await reader.all<{ id: number; body: Uint8Array }>('SELECT id, body FROM t ORDER BY id');
      assert.deepEqual(
        rows.map((r) => r.id),
        [...written.keys()].sort((a, b) => a - b),
      );
      for (const r of rows) assert.ok(Buffer.from(r.body).equals(written.get(r.id)!), `row ${r.id}`);
    };
    for (let round = 0; round < 6; round++) {
      // New rows (the file grows) and a row rewritten (pages the reader read before change).
      for (let i = 0; i < 3; i++) {
        const id = round * 3 + i;
        const body = randomBytes(300_000 + i * 1_000);
        await writer.run('INSERT INTO t (id, body) VALUES (?, ?)', [id, body]);
        written.set(id, body);
      }
      if (round > 0) {
        const body = randomBytes(310_000);
        await writer.run('UPDATE t SET body = ? WHERE id = ?', [body, round - 1]);
        written.set(round - 1, body);
      }
      await readAll();
      // Into the file: the reader's next reads come through its map, not the log.
      await writer.get('PRAGMA wal_checkpoint(TRUNCATE)');
      await readAll();
    }
  } finally {
    await reader.close();
    await writer.close();
  }
});
