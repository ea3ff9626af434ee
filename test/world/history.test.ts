/**
 * World history: any past turn is readable, a turn stores only what it changed, and a fork shares
 * its parent's history up to the fork turn without copying it (what-if runs).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isNoemaError } from '../../src/core/errors.ts';
import { diffTurns, forkWorld, getWorld } from '../../src/runtimes/world/index.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { startParkKit } from '../../src/testing/world-kit.ts';
import { count } from './helpers.ts';

describeEachStore('world history and forks', (factory) => {
  test('a turn stores only the entities it changed; get_world reads every past turn', async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startParkKit(store);
      try {
        await kit.world('park');
        assert.equal(
          await count(store, "SELECT COUNT(*) AS n FROM world_entity_versions WHERE world_slug = 'park'"),
          0,
          "turn 0 is the scenario's state, stored as one snapshot",
        );
        assert.equal(
          await count(
            store,
            "SELECT COUNT(*) AS n FROM world_snapshots WHERE world_slug = 'park' AND turn = 0",
          ),
          1,
        );
        await kit.runtime.runTurn({ world_slug: 'park' }); // bob, vending machine, ant, crumb change
        await kit.runtime.runTurn({ world_slug: 'park' }); // bob's memory only
        const perTurn = await store.all<{ turn: number; n: number }>(
          "SELECT turn, COUNT(*) AS n FROM world_entity_versions WHERE world_slug = 'park' GROUP BY turn ORDER BY turn",
        );
        assert.deepEqual(
          perTurn.map((r) => [Number(r.turn), Number(r.n)]),
          [
            [1, 4],
            [2, 1],
          ],
        );
        assert.equal(
          await count(store, 'SELECT COUNT(*) AS n FROM world_environment_versions WHERE turn > 0'),
          0,
        );
        const t0 = await getWorld(store, { world_slug: 'park', turn: 0 });
        const t1 = await getWorld(store, { world_slug: 'park', turn: 1 });
        const t2 = await getWorld(store, { world_slug: 'park', turn: 2 });
        assert.equal(t0.entities.crumb!.state, 'a cookie crumb on the plate');
        assert.equal(t1.entities.crumb!.state, 'gone');
        assert.equal(t1.entities.bob!.memory, 'I bought a candy bar from the vending machine.');
        assert.match(t2.entities.bob!.memory!, /^I bought a candy bar.*\nGot a spam text/s);
        assert.equal(t2.simulation_time, '2026-04-28T15:00:00.000Z');
        assert.equal(t1.entities.crumb!.kind, 'prop');
        assert.equal('memory' in t1.entities.crumb!, false, 'props have no memory');
        const d = await diffTurns(store, { world_slug: 'park', from_turn: 1, to_turn: 2 });
        assert.deepEqual(
          d.entities.map((e) => [e.entity_id, e.field]),
          [['bob', 'memory']],
        );
      } finally {
        await kit.close();
      }
    });
  });

  test('fork_world shares history up to the fork without copying; the fork and its parent diverge', async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startParkKit(store, { vendingStock: 5 });
      try {
        await kit.world('park');
        await kit.runtime.runTurn({ world_slug: 'park' });
        await kit.runtime.runTurn({ world_slug: 'park' });
        const rowsBefore = await count(store, 'SELECT COUNT(*) AS n FROM world_entity_versions');
        const f = await forkWorld(store, { world_slug: 'park', at_turn: 1, new_world_slug: 'what-if' });
        assert.deepEqual(f, { world_slug: 'what-if', forked_from: 'park', at_turn: 1, turn: 1 });
        assert.equal(
          await count(store, 'SELECT COUNT(*) AS n FROM world_entity_versions'),
          rowsBefore,
          'nothing copied',
        );
        assert.deepEqual(
          (await getWorld(store, { world_slug: 'what-if', turn: 1 })).entities,
          (await getWorld(store, { world_slug: 'park', turn: 1 })).entities,
        );
        const r = await kit.runtime.runTurn({ world_slug: 'what-if' });
        assert.equal(r.status, 'committed');
        assert.equal(r.turn, 2);
        assert.equal(
          await count(store, "SELECT COUNT(*) AS n FROM world_entity_versions WHERE world_slug = 'what-if'"),
          1,
        );
        assert.equal((await getWorld(store, { world_slug: 'park' })).head_turn, 2, 'the parent is untouched');
        assert.equal(
          (await getWorld(store, { world_slug: 'what-if', turn: 0 })).entities.crumb!.state,
          'a cookie crumb on the plate',
        );
        await assert.rejects(
          forkWorld(store, { world_slug: 'park', at_turn: 3, new_world_slug: 'x' }),
          (e) => isNoemaError(e) && e.code === 'UNKNOWN_TURN',
        );
        await assert.rejects(
          forkWorld(store, { world_slug: 'park', at_turn: 1, new_world_slug: 'what-if' }),
          (e) => isNoemaError(e) && e.code === 'WORLD_EXISTS',
        );
      } finally {
        await kit.close();
      }
    });
  });
});
