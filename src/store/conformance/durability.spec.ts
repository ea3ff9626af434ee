/**
 * Conformance: a `durability: 'deferred'` transaction commits and rolls back exactly like an
 * ordinary one (only when it reaches disk differs, which no test short of crashing the database
 * server can observe), and leaves the connection ordinary for the next transaction.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StoreFactory } from '../../testing/each-store.ts';

export function durabilitySpecs(factory: StoreFactory): void {
  test('a deferred-durability transaction commits, is visible at once, and rolls back when it throws', async () => {
    await factory.withStore(async ({ store }) => {
      await store.run('CREATE TABLE d (id TEXT PRIMARY KEY)');
      await store.transaction((tx) => tx.run('INSERT INTO d (id) VALUES (?)', ['kept']), {
        durability: 'deferred',
      });
      await assert.rejects(
        store.transaction(
          async (tx) => {
            await tx.run('INSERT INTO d (id) VALUES (?)', ['dropped']);
            throw new Error('boom');
          },
          { durability: 'deferred' },
        ),
        /boom/,
      );
      // Ordinary transactions on the same connections afterwards.
      for (let i = 0; i < 12; i++)
        await store.transaction((tx) => tx.run('INSERT INTO d (id) VALUES (?)', [`n${i}`]));
      const rows = await store.all<{ id: string }>("SELECT id FROM d WHERE id IN ('kept', 'dropped')");
      assert.deepEqual(
        rows.map((r) => r.id),
        ['kept'],
      );
    });
  });
}
