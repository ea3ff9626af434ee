/** The toy park services through http_json sources on both stores: turn-dependent, schema-valid, traced. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { invokeSource, putJsonSchema, putResponseSource } from '../../sources/index.ts';
import type { Store } from '../../store/store.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import { startToyServices, type ToyServices, toyResultSchemas, toySources } from './index.ts';

async function call(store: Store, toys: ToyServices, doc: object, request: object, schema?: object) {
  const out = await invokeSource(store, {
    source: await putResponseSource(store, doc),
    request,
    kind: 'ambient_context',
    env: toys.env,
    resultSchema: schema ? await putJsonSchema(store, schema as Record<string, unknown>) : null,
  });
  assert.equal(out.ok, true, out.error?.message);
  return out.output as Record<string, unknown>;
}

describeEachStore('toy park services', (factory) => {
  test('weather cools 72 → 64 → 55 °F, the PA speaks on turn 2 only, the inbox gets spam on turn 2', async () => {
    const { store, dispose } = await factory.open();
    const toys = await startToyServices();
    try {
      const temps: unknown[] = [];
      const pa: unknown[] = [];
      const inbox: unknown[] = [];
      for (const turn of [1, 2, 3]) {
        temps.push(
          (
            await call(
              store,
              toys,
              toySources.weather,
              { turn, environment_label: 'park' },
              toyResultSchemas.weather,
            )
          ).temperature_f,
        );
        pa.push(
          (
            await call(
              store,
              toys,
              toySources.pa,
              { turn, speaker_id: 'park_pa_speaker' },
              toyResultSchemas.pa,
            )
          ).announcements,
        );
        inbox.push(
          (
            await call(
              store,
              toys,
              toySources.phoneInbox,
              { turn, owner_entity_id: 'bob' },
              toyResultSchemas.phoneInbox,
            )
          ).messages,
        );
      }
      assert.deepEqual(temps, [72, 64, 55]);
      assert.deepEqual(pa, [
        [],
        ['Attention park visitors: the east vending area is closed for maintenance.'],
        [],
      ]);
      assert.deepEqual(inbox[0], []);
      assert.deepEqual(inbox[1], [
        { from: 'Unknown', body: 'Limited time offer: free candy coupons!', kind: 'spam' },
      ]);
      assert.deepEqual(inbox[2], []);
      const rows = await store.all("SELECT status FROM source_invocations WHERE status = 'succeeded'");
      assert.equal(rows.length, 9, 'every call, empty results included, is a succeeded invocation');
    } finally {
      await toys.close();
      await dispose();
    }
  });

  test('the vending machine dispenses while stock lasts, then answers empty; send-text and the fountain answer', async () => {
    const { store, dispose } = await factory.open();
    const toys = await startToyServices({ vendingStock: 1 });
    try {
      const buy = { actor_id: 'bob', machine_id: 'vending_machine', button: 'C' };
      const first = await call(store, toys, toySources.vending, buy, toyResultSchemas.vending);
      const second = await call(
        store,
        toys,
        toySources.vending,
        { ...buy, actor_id: 'alice' },
        toyResultSchemas.vending,
      );
      assert.deepEqual(first, { status: 'dispensed', remaining: 0, message: 'A candy bar was dispensed.' });
      assert.deepEqual(second, { status: 'empty', remaining: 0, message: 'No candy bars remain.' });
      const sent = await call(store, toys, toySources.sendText, {
        to: 'alice',
        body: 'at the park',
        turn: 2,
      });
      assert.equal(sent.status, 'sent');
      const drink = await call(store, toys, toySources.fountain, { actor_id: 'bob', turn: 3 });
      assert.equal(drink.status, 'dispensed');
      assert.match(String(drink.message), /icy/);
    } finally {
      await toys.close();
      await dispose();
    }
  });
});

test('toys refuse requests without a turn with a JSON 400', async () => {
  const toys = await startToyServices();
  try {
    const res = await fetch(`${toys.url}/weather`, { method: 'POST', body: '{}' });
    assert.equal(res.status, 400);
    assert.match(((await res.json()) as { error: string }).error, /turn/);
  } finally {
    await toys.close();
  }
});
