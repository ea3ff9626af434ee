/**
 * Conformance: a row trigger (`rowTriggerDdl`) copies each inserted or updated row its condition
 * holds for into another table, in the writer's transaction (a rolled-back write copies nothing),
 * and `dropRowTriggerDdl` removes it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StoreFactory } from '../../testing/each-store.ts';

export function rowTriggerSpecs(factory: StoreFactory): void {
  test('inserts and updates are copied where the condition holds, with the writer’s transaction', () =>
    factory.withStore(async ({ store }) => {
      const d = store.dialect;
      await store.run('CREATE TABLE calls (id TEXT PRIMARY KEY, prompt TEXT NOT NULL, answer TEXT)');
      await store.run(
        `CREATE TABLE copies (n ${d.autoId}, kind TEXT NOT NULL, ref TEXT NOT NULL, body TEXT)`,
      );
      const triggers = [
        d.rowTriggerDdl({
          name: 'calls_prompt_copy',
          table: 'calls',
          on: 'insert',
          into: 'copies',
          values: { kind: `'prompt'`, ref: 'NEW.id', body: `substr(replace(NEW.prompt, '\\n', ' '), 1, 12)` },
        }),
        d.rowTriggerDdl({
          name: 'calls_answer_copy',
          table: 'calls',
          on: 'update',
          when: 'NEW.answer IS NOT NULL AND OLD.answer IS NULL',
          into: 'copies',
          values: { kind: `'answer'`, ref: 'NEW.id', body: 'NEW.answer' },
        }),
      ];
      for (const sql of triggers.flat()) await store.run(sql);
      await store.run('INSERT INTO calls (id, prompt) VALUES (?, ?)', ['c1', 'line one\\nline two and more']);
      await store.run('UPDATE calls SET answer = ? WHERE id = ?', ['yes', 'c1']);
      await store.run('UPDATE calls SET answer = ? WHERE id = ?', ['again', 'c1']);
      await assert.rejects(
        store.transaction(async (tx) => {
          await tx.run('INSERT INTO calls (id, prompt) VALUES (?, ?)', ['c2', 'rolled back']);
          throw new Error('roll back');
        }),
      );
      const rows = await store.all('SELECT kind, ref, body FROM copies ORDER BY n');
      assert.deepEqual(
        rows.map((r) => ({ ...r })),
        [
          { kind: 'prompt', ref: 'c1', body: 'line one lin' },
          { kind: 'answer', ref: 'c1', body: 'yes' },
        ],
      );
      for (const sql of [
        ...d.dropRowTriggerDdl('calls_prompt_copy', 'calls'),
        ...d.dropRowTriggerDdl('calls_answer_copy', 'calls'),
      ])
        await store.run(sql);
      await store.run('INSERT INTO calls (id, prompt) VALUES (?, ?)', ['c3', 'not copied']);
      assert.equal((await store.all('SELECT n FROM copies')).length, 2);
    }));
}
