// Long-term memory on both stores: positive integer ids, append and replace, scopes kept apart,
// full-text retrieval ranked by relevance then recency, bounded limits, typed errors that change nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { migrations } from '../../app/migrations.ts';
import { migrate } from '../../store/index.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import { addMemory, CANDIDATE_WINDOW, forgetScope, getMemory, retrieveMemories } from './index.ts';
import { scopeKey } from './records.ts';

const alice = { scope_kind: 'user', scope_id: 'alice' } as const;
const bob = { scope_kind: 'user', scope_id: 'bob' } as const;

async function rejects(p: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(p, (e: { code?: string }) => {
    assert.equal(e.code, code);
    return true;
  });
}

describeEachStore('long-term memory', (factory) => {
  test('add allocates positive increasing ids and get reads a record back whole', () =>
    factory.withStore(async ({ store }) => {
      const a = await addMemory(store, { ...alice, text: 'Alice likes green tea', meta: { source: 'chat' } });
      const b = await addMemory(store, { ...alice, text: 'Alice works on compilers', kind: 'fact' });
      assert.equal(a.operation, 'created');
      assert.ok(a.memory.memory_id >= 1 && b.memory.memory_id > a.memory.memory_id);
      const read = await getMemory(store, b.memory.memory_id);
      assert.deepEqual(read, b.memory);
      assert.equal(read?.kind, 'fact');
      assert.deepEqual((await getMemory(store, a.memory.memory_id))?.meta, { source: 'chat' });
      assert.equal(await getMemory(store, 999_999), null);
    }));

  test('full-text retrieval finds matching words, ranks the better match first, and stays in its scope', () =>
    factory.withStore(async ({ store }) => {
      await addMemory(store, { ...alice, text: 'Alice drinks green tea every morning' });
      await addMemory(store, {
        ...alice,
        text: 'Alice prefers tea over coffee; green tea especially, green',
      });
      await addMemory(store, { ...alice, text: 'Alice rides a bicycle to work' });
      await addMemory(store, { ...bob, text: 'Bob also likes green tea' });
      const r = await retrieveMemories(store, { ...alice, query_text: 'green TEA?' });
      assert.equal(r.items.length, 2, JSON.stringify(r.items));
      assert.ok(r.items.every((m) => m.scope_id === 'alice'));
      assert.match(r.items[0]!.text, /especially, green/, 'more occurrences of the words rank first');
      assert.ok(r.items[0]!.score >= r.items[1]!.score);
      const bike = await retrieveMemories(store, { ...alice, query_text: 'bicycle' });
      assert.deepEqual(
        bike.items.map((m) => m.text),
        ['Alice rides a bicycle to work'],
      );
      const everyone = await retrieveMemories(store, { scope_kind: 'user', query_text: 'green' });
      assert.equal(everyone.items.length, 3);
      assert.deepEqual((await retrieveMemories(store, { ...alice, query_text: 'zebra' })).items, []);
    }));

  test('at equal relevance the newer memory ranks first', () =>
    factory.withStore(async ({ store }) => {
      const day = 24 * 3600 * 1000;
      const now = Date.UTC(2026, 0, 1);
      await addMemory(store, { ...alice, text: 'meeting notes about the launch' }, now - 90 * day);
      await addMemory(store, { ...alice, text: 'meeting notes about the budget' }, now - day);
      const r = await retrieveMemories(store, { ...alice, query_text: 'meeting notes' }, now);
      assert.deepEqual(
        r.items.map((m) => m.text),
        ['meeting notes about the budget', 'meeting notes about the launch'],
      );
    }));

  test('a query decodes only the memories it returns: a candidate ranked below the limit is not read whole', () =>
    factory.withStore(async ({ store }) => {
      const day = 24 * 3600 * 1000;
      const now = Date.UTC(2026, 0, 1);
      const old = await addMemory(store, { ...alice, text: 'printer notes' }, now - 90 * day);
      await addMemory(store, { ...alice, text: 'printer notes' }, now - day);
      // A meta no reader could decode, on the candidate that ranks second (older, equally relevant).
      await store.run('UPDATE long_term_memories SET meta_json = ? WHERE memory_id = ?', [
        '{',
        old.memory.memory_id,
      ]);
      const r = await retrieveMemories(store, { ...alice, query_text: 'printer', limit: 1 }, now);
      assert.deepEqual(
        r.items.map((m) => [m.text, m.created_at]),
        [['printer notes', new Date(now - day).toISOString()]],
      );
    }));

  test('a query ranks the newest CANDIDATE_WINDOW matches only: an older, better match beyond them is not found', () =>
    factory.withStore(async ({ store }) => {
      const old = await addMemory(store, { ...alice, text: 'tea tea tea tea, all about tea' });
      await addMemory(store, { ...alice, text: 'coffee only, nothing else' });
      await store.transaction(async (tx) => {
        for (let i = 0; i < CANDIDATE_WINDOW; i++)
          await addMemory(tx, { ...alice, text: `day ${i}: some tea with many other words in it` });
      });
      const r = await retrieveMemories(store, { ...alice, query_text: 'tea', limit: 50 });
      assert.equal(r.items.length, 50);
      assert.ok(
        !r.items.some((m) => m.memory_id === old.memory.memory_id),
        'the old match is past the window',
      );
      // One match fewer in the window and the old one is a candidate again, ranked first.
      const newest = (await retrieveMemories(store, { ...alice, limit: 1 })).items[0]!;
      await addMemory(store, {
        ...alice,
        memory_id: newest.memory_id,
        text: 'no longer about that drink',
        store_mode: 'replace',
      });
      const again = await retrieveMemories(store, { ...alice, query_text: 'tea', limit: 50 });
      assert.equal(again.items[0]?.memory_id, old.memory.memory_id);
    }));

  test('in a scope of many memories, the newest matches are found among the newest and the oldest rows alike', () =>
    factory.withStore(async ({ store }) => {
      const first = await addMemory(store, { ...alice, text: 'the zebra was the first memory' });
      await store.transaction(async (tx) => {
        for (let i = 0; i < 700; i++) {
          await addMemory(tx, { ...alice, text: `ordinary day ${i}${i === 350 ? ' zebra again' : ''}` });
          if (i % 7 === 0) await addMemory(tx, { ...bob, text: `bob saw a zebra on day ${i}` });
        }
      });
      const last = await addMemory(store, { ...alice, text: 'a zebra, lately' });
      const r = await retrieveMemories(store, { ...alice, query_text: 'zebra', limit: 50 });
      assert.deepEqual(r.items.map((m) => m.text).sort(), [
        'a zebra, lately',
        'ordinary day 350 zebra again',
        'the zebra was the first memory',
      ]);
      assert.equal(r.items[0]?.memory_id, last.memory.memory_id, 'at equal relevance the newest first');
      assert.ok(r.items.some((m) => m.memory_id === first.memory.memory_id));
      // Common words fill the candidate window from the newest rows alone.
      const common = await retrieveMemories(store, { ...alice, query_text: 'ordinary day', limit: 50 });
      assert.equal(common.items.length, 50);
      assert.ok(common.items.every((m) => m.scope_id === 'alice' && m.text.startsWith('ordinary day')));
    }));

  test("a text holding another scope's search token does not leak into that scope", () =>
    factory.withStore(async ({ store }) => {
      await addMemory(store, { ...bob, text: `${scopeKey(alice)} green tea` });
      await addMemory(store, { ...alice, text: 'green tea' });
      const r = await retrieveMemories(store, { ...alice, query_text: 'green tea' });
      assert.deepEqual(
        r.items.map((m) => m.scope_id),
        ['alice'],
      );
    }));

  test('the full-text index of migration 131 is rebuilt from the memories already stored', () =>
    factory.withStore(
      async ({ store }) => {
        await addMemory(store, { ...alice, text: 'stored before the upgrade: green tea' });
        await addMemory(store, { ...bob, text: 'bob also drinks green tea' });
        await migrate(store, migrations);
        const r = await retrieveMemories(store, { ...alice, query_text: 'tea' });
        assert.deepEqual(
          r.items.map((m) => m.text),
          ['stored before the upgrade: green tea'],
        );
        await addMemory(store, { ...alice, text: 'after the upgrade: more tea' });
        assert.equal(
          (await retrieveMemories(store, { scope_kind: 'user', query_text: 'tea' })).items.length,
          3,
        );
      },
      migrations.filter((m) => m.id <= 130),
    ));

  test('without a query the newest memories of the scope come first; limit is clamped to 1..50', () =>
    factory.withStore(async ({ store }) => {
      for (let i = 0; i < 60; i++) await addMemory(store, { ...alice, text: `memory ${i}` });
      await addMemory(store, { ...bob, text: 'not alice' });
      const newest = await retrieveMemories(store, { ...alice, limit: 3 });
      assert.deepEqual(
        newest.items.map((m) => m.text),
        ['memory 59', 'memory 58', 'memory 57'],
      );
      assert.equal((await retrieveMemories(store, { ...alice, limit: 500 })).items.length, 50);
      assert.equal((await retrieveMemories(store, { ...alice, limit: 0 })).items.length, 1);
      assert.equal((await retrieveMemories(store, { ...alice, query_text: '  !! ' })).items.length, 10);
    }));

  test('a kind narrows the newest memories and the matches of a scope, or of every scope of a kind', () =>
    factory.withStore(async ({ store }) => {
      await addMemory(store, { ...alice, text: 'tea is a fact', kind: 'fact' });
      await addMemory(store, { ...alice, text: 'tea is a note' });
      await addMemory(store, { ...bob, text: 'tea is a fact for bob', kind: 'fact' });
      await addMemory(store, {
        scope_kind: 'agent',
        scope_id: 'alice',
        text: 'tea, agent fact',
        kind: 'fact',
      });
      const texts = async (input: Parameters<typeof retrieveMemories>[1]) =>
        (await retrieveMemories(store, input)).items.map((m) => m.text).sort();
      assert.deepEqual(await texts({ ...alice, kind: 'fact' }), ['tea is a fact']);
      assert.deepEqual(await texts({ ...alice, kind: 'fact', query_text: 'tea' }), ['tea is a fact']);
      assert.deepEqual(await texts({ ...alice, query_text: 'tea' }), ['tea is a fact', 'tea is a note']);
      assert.deepEqual(await texts({ scope_kind: 'user', kind: 'fact', query_text: 'tea' }), [
        'tea is a fact',
        'tea is a fact for bob',
      ]);
      assert.deepEqual(await texts({ scope_kind: 'agent', scope_id: 'alice' }), ['tea, agent fact']);
    }));

  test('retrieve by memory_id returns that memory only within the requested scope', () =>
    factory.withStore(async ({ store }) => {
      const { memory } = await addMemory(store, { ...alice, text: 'only this one' });
      assert.deepEqual(
        (await retrieveMemories(store, { memory_id: memory.memory_id })).items.map((m) => m.text),
        ['only this one'],
      );
      assert.deepEqual((await retrieveMemories(store, { ...bob, memory_id: memory.memory_id })).items, []);
    }));

  test('replace rewrites the target (or the newest of the scope and kind) and keeps the index in sync', () =>
    factory.withStore(async ({ store }) => {
      const first = await addMemory(store, { ...alice, text: 'favourite colour is red', kind: 'preference' });
      const replaced = await addMemory(store, {
        ...alice,
        text: 'favourite colour is blue',
        kind: 'preference',
        store_mode: 'replace',
      });
      assert.equal(replaced.operation, 'replaced');
      assert.equal(replaced.memory.memory_id, first.memory.memory_id);
      assert.deepEqual((await retrieveMemories(store, { ...alice, query_text: 'red' })).items, []);
      assert.equal((await retrieveMemories(store, { ...alice, query_text: 'blue' })).items.length, 1);
      const fresh = await addMemory(store, { ...bob, text: 'first of bob', store_mode: 'replace' });
      assert.equal(fresh.operation, 'created', 'replace in an empty scope creates');
      await rejects(
        addMemory(store, { ...bob, text: 'x', store_mode: 'replace', memory_id: first.memory.memory_id }),
        'NOT_FOUND',
      );
    }));

  test('forgetScope deletes one scope only, and its memories are no longer found', () =>
    factory.withStore(async ({ store }) => {
      await addMemory(store, { ...alice, text: 'secret plan' });
      await addMemory(store, { ...alice, text: 'another secret' });
      await addMemory(store, { ...bob, text: 'bob secret' });
      assert.deepEqual(await forgetScope(store, alice), { deleted: 2 });
      assert.deepEqual((await retrieveMemories(store, { ...alice, query_text: 'secret' })).items, []);
      assert.equal(
        (await retrieveMemories(store, { scope_kind: 'user', query_text: 'secret' })).items.length,
        1,
      );
    }));

  test('bad input is a typed INVALID_INPUT and writes nothing', () =>
    factory.withStore(async ({ store }) => {
      const bad: Array<Parameters<typeof addMemory>[1]> = [
        { ...alice, text: '' },
        { ...alice, text: '   ' },
        { scope_kind: 'planet' as 'user', scope_id: 'x', text: 't' },
        { scope_kind: 'user', scope_id: '', text: 't' },
        { ...alice, text: 't', kind: 'Bad Kind' },
        { ...alice, text: 't', meta: [] as unknown as Record<string, unknown> },
        { ...alice, text: 't', store_mode: 'merge' as 'append' },
        { ...alice, text: 't', store_mode: 'replace', memory_id: -3 },
        { ...alice, text: 'x'.repeat(40_000) },
      ];
      for (const input of bad) await rejects(addMemory(store, input), 'INVALID_INPUT');
      await rejects(retrieveMemories(store, { memory_id: 0 }), 'INVALID_INPUT');
      await rejects(retrieveMemories(store, { scope_id: 'alice' }), 'INVALID_INPUT');
      await rejects(getMemory(store, 1.5), 'INVALID_INPUT');
      const n = await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM long_term_memories');
      assert.equal(Number(n?.n), 0);
    }));

  test('writes inside a transaction roll back with it', () =>
    factory.withStore(async ({ store }) => {
      await assert.rejects(
        store.transaction(async (tx) => {
          await addMemory(tx, { ...alice, text: 'rolled back tea' });
          assert.equal((await retrieveMemories(tx, { ...alice, query_text: 'tea' })).items.length, 1);
          throw new Error('abort');
        }),
      );
      assert.deepEqual((await retrieveMemories(store, { ...alice, query_text: 'tea' })).items, []);
    }));
});
