/** invokeSource's bookkeeping: sequence numbers per attempt under concurrency, schemas, refusals. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startToyServices, toySources } from '../dev/toys/index.ts';
import type { Store } from '../store/store.ts';
import { describeEachStore } from '../testing/each-store.ts';
import { refusingStore } from '../testing/refusing-store.ts';
import {
  getJsonSchema,
  getSourceInvocation,
  type InvocationLinks,
  invokeSource,
  putJsonSchema,
  putResponseSource,
} from './index.ts';

/** Another process: its own handle on the same database (its seq cache and lease its own). */
function anotherProcess(store: Store): Store {
  return new Proxy(store, {
    get(target, key) {
      const v = Reflect.get(target, key);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

describeEachStore('invokeSource', (factory) => {
  test('its writes are single statements committed on their own (synchronously, or in one round trip) once the lease is registered', async () => {
    const { store, dispose } = await factory.open();
    const toys = await startToyServices();
    try {
      const source = await putResponseSource(store, toySources.weather);
      const calls = { transaction: 0, transactionSync: 0, runSync: 0, runAlone: 0 };
      const counting = new Proxy(store, {
        get(target, key) {
          const v = Reflect.get(target, key);
          if (typeof v !== 'function') return v;
          if (key !== 'transaction' && key !== 'transactionSync' && key !== 'runSync' && key !== 'runAlone')
            return v.bind(target);
          return (...args: unknown[]) => {
            calls[key] += 1;
            return v.apply(target, args);
          };
        },
      });
      const call = (links: InvocationLinks) =>
        invokeSource(counting, {
          source,
          request: { turn: 1 },
          kind: 'ambient_context',
          env: toys.env,
          links,
        });
      // The first call registers the process lease, in an asynchronous transaction.
      assert.equal((await call({ attempt_id: 'sync' })).invocation_seq, 1);
      const sync = store.transactionSync !== undefined;
      const alone = store.runSync !== undefined;
      // Asynchronous statements: one round trip each instead of BEGIN, the statement and COMMIT.
      const trip = store.runAlone !== undefined;
      // In an attempt the running row names the seq after the one this process committed there (one
      // statement, committed on its own); the finish is one statement too.
      Object.assign(calls, { transaction: 0, transactionSync: 0, runSync: 0, runAlone: 0 });
      const second = await call({ attempt_id: 'sync' });
      assert.equal(second.ok, true, second.error?.message);
      assert.equal(second.invocation_seq, 2, 'the attempt takes its next seq');
      assert.equal((await getSourceInvocation(store, second.source_invocation_id)).status, 'succeeded');
      assert.deepEqual(calls, {
        transaction: sync || trip ? 0 : 2,
        transactionSync: alone || !sync ? 0 : 2,
        runSync: alone ? 2 : 0,
        runAlone: trip ? 2 : 0,
      });
      // A new attempt has no seq noted: its running row names 1 (no insert allocating one and no
      // read-back of it), one statement committed on its own; its finish is one statement.
      Object.assign(calls, { transaction: 0, transactionSync: 0, runSync: 0, runAlone: 0 });
      assert.equal((await call({ attempt_id: 'sync-2' })).invocation_seq, 1);
      assert.deepEqual(calls, {
        transaction: sync || trip ? 0 : 2,
        transactionSync: alone || !sync ? 0 : 2,
        runSync: alone ? 2 : 0,
        runAlone: trip ? 2 : 0,
      });
      // Outside an attempt and a run, the running row is one statement too.
      Object.assign(calls, { transaction: 0, transactionSync: 0, runSync: 0, runAlone: 0 });
      const third = await call({});
      assert.equal(third.ok, true, third.error?.message);
      assert.equal(third.invocation_seq, 1);
      const row = await getSourceInvocation(store, third.source_invocation_id);
      assert.equal(row.status, 'succeeded');
      assert.deepEqual(row.response_json, third.output);
      assert.deepEqual(calls, {
        transaction: sync || trip ? 0 : 2,
        transactionSync: alone || !sync ? 0 : 2,
        runSync: alone ? 2 : 0,
        runAlone: trip ? 2 : 0,
      });
    } finally {
      await toys.close();
      await dispose();
    }
  });

  test("a caller's outputKind names model_output_kind with the finished row; a throw or a bad name leaves it unset", async () => {
    const { store, dispose } = await factory.open();
    const toys = await startToyServices();
    try {
      const weather = await putResponseSource(store, toySources.weather);
      const seen: unknown[] = [];
      const call = (outputKind: (r: { ok: boolean }) => string | null, request: unknown = { turn: 1 }) =>
        invokeSource(store, {
          source: weather,
          request,
          kind: 'ambient_context',
          env: toys.env,
          outputKind: (r) => {
            seen.push(r);
            return outputKind(r);
          },
        });
      const kindOf = async (id: string) => (await getSourceInvocation(store, id)).model_output_kind;
      const named = await call(() => 'tool_call');
      assert.equal(named.ok, true, named.error?.message);
      assert.equal(await kindOf(named.source_invocation_id), 'tool_call');
      assert.deepEqual(seen.at(-1), { ok: true, output: named.output });
      for (const bad of [
        () => {
          throw new Error('judging failed');
        },
        () => 'Not A Name',
        () => null,
      ]) {
        const out = await call(bad);
        assert.equal(out.ok, true, out.error?.message);
        assert.equal(await kindOf(out.source_invocation_id), null);
        assert.equal((await getSourceInvocation(store, out.source_invocation_id)).status, 'succeeded');
      }
      // A failed call is named from its failure class (the toy refuses a turn that is not an integer).
      const failed = await call((r) => (r.ok ? 'tool_call' : 'invalid'), { turn: 'one' });
      assert.equal(failed.ok, false);
      assert.deepEqual(seen.at(-1), { ok: false, failure_class: failed.failure_class });
      assert.equal(await kindOf(failed.source_invocation_id), 'invalid');
    } finally {
      await toys.close();
      await dispose();
    }
  });

  test('concurrent invocations in one attempt get distinct, gapless invocation_seq values', async () => {
    const { store, dispose } = await factory.open();
    const toys = await startToyServices();
    try {
      const source = await putResponseSource(store, toySources.weather);
      const outs = await Promise.all(
        [1, 2, 3, 4, 5, 6].map((turn) =>
          invokeSource(store, {
            source,
            request: { turn },
            kind: 'ambient_context',
            env: toys.env,
            links: { attempt_id: 'att' },
          }),
        ),
      );
      assert.deepEqual(outs.map((o) => o.invocation_seq).sort(), [1, 2, 3, 4, 5, 6]);
      const other = await invokeSource(store, {
        source,
        request: { turn: 1 },
        kind: 'ambient_context',
        env: toys.env,
        links: { attempt_id: 'att2' },
      });
      assert.equal(other.invocation_seq, 1);
    } finally {
      await toys.close();
      await dispose();
    }
  });

  test('a call whose seq a still-open transaction of its attempt (or run) took gets the next one once it commits', async () => {
    const { store, dispose } = await factory.open();
    const toys = await startToyServices();
    try {
      const source = await putResponseSource(store, toySources.weather);
      for (const links of [{ attempt_id: 'held' }, { run_id: 'held-run' }]) {
        let inserted!: () => void;
        const insertedFirst = new Promise<void>((r) => {
          inserted = r;
        });
        let release!: () => void;
        const released = new Promise<void>((r) => {
          release = r;
        });
        const call = { source, request: { turn: 1 }, kind: 'ambient_context' as const, env: toys.env, links };
        // The first call's running row stays uncommitted until the second call is trying to insert.
        const first = invokeSource(store, call, {
          running: (write) =>
            store.transaction(async (tx) => {
              const out = await write(tx);
              // The row is issued, not yet known executed (PostgreSQL pipelines it): a read answered
              // behind it on the same connection says it is in place, uncommitted.
              await tx.get('SELECT 1 AS x');
              inserted();
              await released;
              return out;
            }),
        });
        await insertedFirst;
        const second = invokeSource(store, call);
        await new Promise((r) => setTimeout(r, 50));
        release();
        const outs = await Promise.all([first, second]);
        assert.deepEqual(
          outs.map((o) => [o.status, o.invocation_seq]),
          [
            ['succeeded', 1],
            ['succeeded', 2],
          ],
        );
      }
    } finally {
      await toys.close();
      await dispose();
    }
  });

  test('a seq this process names is turned away when another writer of the attempt took it, and a rolled-back row does not use one up', async () => {
    const { store, dispose } = await factory.open();
    const toys = await startToyServices();
    try {
      const source = await putResponseSource(store, toySources.weather);
      const other = anotherProcess(store);
      const links = { attempt_id: 'shared' };
      const call = { source, request: { turn: 1 }, kind: 'ambient_context' as const, env: toys.env, links };
      assert.equal((await invokeSource(store, call)).invocation_seq, 1);
      // The other writer takes 2 (the 1 it names in an attempt new to it is turned away), which this
      // process would name next: it takes 3 instead.
      assert.equal((await invokeSource(other, call)).invocation_seq, 2);
      assert.equal((await invokeSource(store, call)).invocation_seq, 3);
      // A running row whose transaction rolls back takes no number: the next call names 4.
      await assert.rejects(
        invokeSource(store, call, {
          running: (write) =>
            store.transaction(async (tx) => {
              await write(tx);
              throw new Error('the caller refused its own transaction');
            }),
        }),
        /refused its own transaction/,
      );
      assert.equal((await invokeSource(store, call)).invocation_seq, 4);
      const seqs = await store.all<{ invocation_seq: number | string }>(
        'SELECT invocation_seq FROM source_invocations WHERE attempt_id = ? ORDER BY invocation_seq',
        ['shared'],
      );
      assert.deepEqual(
        seqs.map((r) => Number(r.invocation_seq)),
        [1, 2, 3, 4],
      );
    } finally {
      await toys.close();
      await dispose();
    }
  });

  test('in a caller’s transaction, a seq this process names that another writer took rolls that transaction back, and it is made again with the next seq', async () => {
    const { store, dispose } = await factory.open();
    const toys = await startToyServices();
    try {
      const source = await putResponseSource(store, toySources.weather);
      const other = anotherProcess(store);
      const links = { attempt_id: 'taken-in-tx' };
      const call = { source, request: { turn: 1 }, kind: 'ambient_context' as const, env: toys.env, links };
      assert.equal((await invokeSource(store, call)).invocation_seq, 1);
      assert.equal((await invokeSource(other, call)).invocation_seq, 2);
      // This process names 2 in its caller's transaction: refused there (nothing of it written), and
      // the transaction is made again, allocating 3. The caller's own write in it commits once.
      let bodies = 0;
      const out = await invokeSource(store, call, {
        running: (write) =>
          store.transaction(async (tx) => {
            bodies++;
            await tx.run('INSERT INTO noema_meta (key, value) VALUES (?, ?)', [`caller-${bodies}`, 'x']);
            return write(tx);
          }),
      });
      assert.equal(out.invocation_seq, 3);
      assert.equal(bodies, 2, 'the caller’s transaction was made twice');
      const metas = await store.all<{ key: string }>("SELECT key FROM noema_meta WHERE key LIKE 'caller-%'");
      assert.deepEqual(
        metas.map((r) => r.key),
        ['caller-2'],
        'the refused transaction wrote nothing',
      );
      const seqs = await store.all<{ invocation_seq: number | string }>(
        'SELECT invocation_seq FROM source_invocations WHERE attempt_id = ? ORDER BY invocation_seq',
        ['taken-in-tx'],
      );
      assert.deepEqual(
        seqs.map((r) => Number(r.invocation_seq)),
        [1, 2, 3],
      );
    } finally {
      await toys.close();
      await dispose();
    }
  });

  test('a request failing its input schema, a bad turn or a bad kind is refused before anything is recorded', async () => {
    const { store, dispose } = await factory.open();
    try {
      const source = await putResponseSource(store, toySources.weather);
      const inputSchema = await putJsonSchema(store, { type: 'object', required: ['turn'] });
      await assert.rejects(
        invokeSource(store, { source, request: {}, kind: 'ambient_context', inputSchema, env: {} }),
        (e: Error & { code?: string }) => e.code === 'INVALID_INPUT',
      );
      await assert.rejects(
        invokeSource(store, {
          source,
          request: { turn: 1 },
          kind: 'ambient_context',
          env: {},
          links: { attempted_turn: 0 },
        }),
        (e: Error & { code?: string }) => e.code === 'INVALID_INPUT',
      );
      await assert.rejects(
        invokeSource(store, { source, request: { turn: 1 }, kind: 'Not A Kind' as never, env: {} }),
        (e: Error & { code?: string }) => e.code === 'INVALID_INPUT',
      );
      assert.deepEqual(await store.all('SELECT source_invocation_id FROM source_invocations'), []);
    } finally {
      await dispose();
    }
  });

  test('JSON schemas are content-addressed: the same schema twice is one row; a broken schema is refused', async () => {
    const { store, dispose } = await factory.open();
    try {
      const a = await putJsonSchema(store, {
        type: 'object',
        properties: { b: { type: 'string' }, a: { type: 'number' } },
      });
      const b = await putJsonSchema(store, {
        properties: { a: { type: 'number' }, b: { type: 'string' } },
        type: 'object',
      });
      assert.equal(a.hash, b.hash);
      assert.deepEqual((await getJsonSchema(store, a.hash)).schema, a.schema);
      const stored = (await store.all('SELECT hash FROM json_schemas')).length;
      await assert.rejects(
        putJsonSchema(store, { type: 'no-such-type' }),
        (e: Error & { code?: string }) => e.code === 'INVALID_SCHEMA',
      );
      assert.equal(
        (await store.all('SELECT hash FROM json_schemas')).length,
        stored,
        'the invalid one is not stored',
      );
    } finally {
      await dispose();
    }
  });

  test('when the result cannot be recorded, the invocation is still finished as failed/internal', async () => {
    const { store, dispose } = await factory.open();
    const toys = await startToyServices();
    try {
      const source = await putResponseSource(store, toySources.weather);
      // The first terminal write fails, as a store refusing the value would (in a transaction of
      // either kind, or as a statement committed on its own: where the store has synchronous ones, the
      // finish runs so).
      let refused = false;
      const flaky = refusingStore(store, (sql) => {
        if (refused || !sql.startsWith('UPDATE source_invocations SET status')) return null;
        refused = true;
        return new Error('invalid byte sequence');
      });
      const out = await invokeSource(flaky, {
        source,
        request: { turn: 1 },
        kind: 'ambient_context',
        env: toys.env,
      });
      assert.equal(refused, true);
      assert.equal(out.ok, false);
      assert.equal(out.status, 'failed');
      assert.equal(out.failure_class, 'internal');
      assert.match(out.error?.message ?? '', /recording the source result failed: invalid byte sequence/);
      const inv = await getSourceInvocation(store, out.source_invocation_id);
      assert.equal(inv.status, 'failed');
      assert.equal(inv.failure_class, 'internal');
    } finally {
      await toys.close();
      await dispose();
    }
  });
});
