/** Conformance: a parameter value the store cannot hold is the same typed error on every backend and writes nothing. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isNoemaError } from '../../core/errors.ts';
import type { StoreFactory } from '../../testing/each-store.ts';

const TABLE = 'CREATE TABLE t (id TEXT PRIMARY KEY, note TEXT)';

function isInvalidInput(err: unknown): boolean {
  assert.ok(isNoemaError(err), `expected a NoemaError, got ${String(err)}`);
  assert.equal(err.code, 'INVALID_INPUT');
  assert.equal(err.status, 400);
  assert.equal(err.retryable, false);
  return true;
}

export function paramSpecs(factory: StoreFactory): void {
  test('a NUL character in an inserted value is INVALID_INPUT and writes nothing', async () => {
    await factory.withStore(async ({ store }) => {
      await store.run(TABLE);
      await assert.rejects(
        store.run('INSERT INTO t (id, note) VALUES (?, ?)', ['a', 'x\u0000y']),
        isInvalidInput,
      );
      assert.equal((await store.all('SELECT id FROM t')).length, 0);
    });
  });

  test('a NUL character in a filter or cursor is INVALID_INPUT, not a database error', async () => {
    await factory.withStore(async ({ store }) => {
      await store.run(TABLE);
      await store.run('INSERT INTO t (id, note) VALUES (?, ?)', ['a', 'n']);
      await assert.rejects(store.get('SELECT id FROM t WHERE id = ?', ['a\u0000']), isInvalidInput);
      await assert.rejects(
        store.all('SELECT id FROM t WHERE id > ? ORDER BY id LIMIT ?', ['\u0000', 10]),
        isInvalidInput,
      );
    });
  });

  test('a NUL character inside a transaction rolls back its earlier statements', async () => {
    await factory.withStore(async ({ store }) => {
      await store.run(TABLE);
      await assert.rejects(
        store.transaction(async (tx) => {
          await tx.run('INSERT INTO t (id, note) VALUES (?, ?)', ['a', 'fine']);
          await tx.run('INSERT INTO t (id, note) VALUES (?, ?)', ['b\u0000', 'bad']);
        }),
        isInvalidInput,
      );
      assert.equal((await store.all('SELECT id FROM t')).length, 0);
      // The store still works afterwards.
      await store.run('INSERT INTO t (id, note) VALUES (?, ?)', ['c', 'ok']);
      assert.equal((await store.all('SELECT id FROM t')).length, 1);
    });
  });

  test('text without NUL is stored as given, control characters included', async () => {
    await factory.withStore(async ({ store }) => {
      await store.run(TABLE);
      await store.run('INSERT INTO t (id, note) VALUES (?, ?)', ['a', 'tab\there \u0001 é 😀']);
      const row = await store.get<{ note: string }>('SELECT note FROM t WHERE id = ?', ['a']);
      assert.equal(row?.note, 'tab\there \u0001 é 😀');
    });
  });
  test('dialect.textBytes reads a TEXT column as its UTF-8 bytes where the driver can, else as the text', async () => {
    await factory.withStore(async ({ store }) => {
      await store.run(TABLE);
      const text = `{"a":"b"},"café ☕ 😀","back\\slash",${'x'.repeat(70_000)}`;
      await store.run('INSERT INTO t (id, note) VALUES (?, ?)', ['a', text]);
      await store.run('INSERT INTO t (id, note) VALUES (?, ?)', ['b', null]);
      const sql = `SELECT ${store.dialect.textBytes('note')} AS note FROM t WHERE id = ?`;
      for (const q of [store, null]) {
        const read = async (id: string) =>
          q
            ? (await q.get<{ note: string | Uint8Array | null }>(sql, [id]))!.note
            : store.transaction(
                async (tx) => (await tx.get<{ note: string | Uint8Array | null }>(sql, [id]))!.note,
              );
        const got = await read('a');
        // Either form holds exactly the text: the bytes are its UTF-8, not some other encoding.
        assert.equal(typeof got === 'string' ? got : Buffer.from(got!).toString('utf8'), text);
        // Bytes exactly where the dialect says (SQLite), so a lost CAST fails here.
        if (store.dialect.textBytesUndecoded) assert.ok(got instanceof Uint8Array, 'bytes');
        else assert.equal(typeof got, 'string');
        assert.equal(await read('b'), null);
      }
    });
  });
  test('dialect.jsonString writes a TEXT value as JSON.stringify does, NULL as null', async () => {
    await factory.withStore(async ({ store }) => {
      await store.run(TABLE);
      const text = `quote " back \\ / tab\t nl\n cr\r \b \f \u0001 \u001f \u007f é ☕ 😀 \u2028`;
      await store.run('INSERT INTO t (id, note) VALUES (?, ?)', ['a', text]);
      await store.run('INSERT INTO t (id, note) VALUES (?, ?)', ['b', null]);
      const sql = `SELECT ${store.dialect.jsonString('note')} AS j FROM t WHERE id = ?`;
      assert.equal((await store.get<{ j: string }>(sql, ['a']))?.j, JSON.stringify(text));
      assert.equal((await store.get<{ j: string }>(sql, ['b']))?.j, 'null');
    });
  });
}
