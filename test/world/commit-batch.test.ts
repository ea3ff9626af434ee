/**
 * The turn's commit writes its patches, audit events, output marks and version rows in multi-row
 * statements: a statement per patch (or per changed entity) would cost a round trip each inside the
 * turn's one transaction.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { uuidv7 } from '../../src/core/ids.ts';
import { commitTurn } from '../../src/runtimes/world/commit.ts';
import { getWorldRow, readWorldState, versionRows, writeVersions } from '../../src/runtimes/world/state.ts';
import type { StagedPatch } from '../../src/runtimes/world/turn-context.ts';
import type { Store, Transaction } from '../../src/store/store.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { startParkKit } from '../../src/testing/world-kit.ts';

/** `store`, counting the statements of each transaction. */
function counting(store: Store): { store: Store; txs: number[] } {
  const txs: number[] = [];
  const bind = (t: object, k: string | symbol) => {
    const v = Reflect.get(t, k);
    return typeof v === 'function' ? v.bind(t) : v;
  };
  const wrapped = new Proxy(store, {
    get(target, key) {
      if (key !== 'transaction') return bind(target, key);
      return (fn: (tx: Transaction) => Promise<unknown>, options?: unknown) =>
        target.transaction((tx) => {
          const i = txs.push(0) - 1;
          const counted = new Proxy(tx, {
            get(t, k) {
              const v = bind(t, k);
              if (k !== 'run' && k !== 'get' && k !== 'all') return v;
              return (sql: string, params?: unknown) => {
                txs[i]!++;
                return v(sql, params);
              };
            },
          });
          return fn(counted);
        }, options as never);
    },
  });
  return { store: wrapped, txs };
}

describeEachStore('world turn commit, batched', (factory) => {
  test('100 patches commit in a bounded number of statements, every row written in patch order', async () => {
    await factory.withStore(async ({ store: raw }) => {
      const kit = await startParkKit(raw, {});
      try {
        await kit.world('park');
        const world = await getWorldRow(raw, 'park');
        const attempt = {
          attempt_id: uuidv7(),
          world_slug: 'park',
          attempted_turn: 1,
          simulation_time: null,
          scenario_hash: world.scenario_hash,
        };
        await raw.run(
          `INSERT INTO world_attempts (attempt_id, world_slug, attempted_turn, run_id, scenario_hash, status, started_at)
           VALUES (?, ?, ?, ?, ?, 'running', ?)`,
          [attempt.attempt_id, 'park', 1, uuidv7(), world.scenario_hash, Date.now()],
        );
        const patches: StagedPatch[] = Array.from({ length: 100 }, (_, k) => ({
          patch_seq: k + 1,
          subject_entity_id: 'bob',
          workflow_hash: 'w',
          workflow_node_id: 'act',
          source_invocation_id: uuidv7(),
          patch: {
            narration: `patch ${k + 1}`,
            effects: [{ op: 'set_entity_state', entity_id: 'ant', state: `state ${k + 1}` }],
          },
          transitions: [],
        }));
        const marks = patches.flatMap((p) => [
          { source_invocation_id: uuidv7(), kind: 'tool_call' as const },
          { source_invocation_id: p.source_invocation_id, kind: 'final_patch' as const },
        ]);
        const { store, txs } = counting(raw);
        const base = await readWorldState(raw, world, 0);
        await commitTurn(store, attempt, base, patches, marks);
        assert.equal(txs.length, 1, 'one transaction');
        // Unbatched it took 3 + 2 per mark + 2 per patch (over 600); now a handful per table.
        assert.ok(txs[0]! <= 30, `the commit ran ${txs[0]} statements`);
        const rows = await raw.all<{ patch_seq: number; narration: string }>(
          'SELECT patch_seq, narration FROM world_patches WHERE attempt_id = ? ORDER BY patch_seq',
          [attempt.attempt_id],
        );
        assert.deepEqual(
          rows.map((r) => `${r.patch_seq}:${r.narration}`),
          patches.map((p) => `${p.patch_seq}:${p.patch.narration}`),
        );
        const audit = await raw.all<{ event_type: string; patch_seq: number | null }>(
          'SELECT event_type, patch_seq FROM world_audit_events WHERE attempt_id = ? ORDER BY event_id',
          [attempt.attempt_id],
        );
        assert.deepEqual(
          audit.map((a) => a.patch_seq),
          [...patches.map((p) => p.patch_seq), null],
        );
        assert.equal(audit.at(-1)!.event_type, 'turn_committed');
      } finally {
        await kit.close();
      }
    });
  });

  test("a turn's version rows are written many per statement, every row kept", async () => {
    await factory.withStore(async ({ store: raw }) => {
      const entities = new Map(
        Array.from({ length: 100 }, (_, k) => [
          `e${k}`,
          { kind: 'object', environment_label: 'park', state: `state ${k}` },
        ]),
      );
      const environments = new Map(Array.from({ length: 5 }, (_, k) => [`env${k}`, { content: `c${k}` }]));
      const world = { entities, environments } as unknown as Parameters<typeof versionRows>[2];
      const rows = versionRows('w', 1, world, {
        entities: new Map([...entities.keys()].map((id) => [id, null])),
        environments: new Set(environments.keys()),
      });
      const { store, txs } = counting(raw);
      await store.transaction((tx) => writeVersions(tx, rows));
      // 100 = 64 + 32 + 4 rows, 5 = 4 + 1: five statements, where a row each took 105.
      assert.deepEqual(txs, [5]);
      const written = await raw.all<{ entity_id: string; state: string }>(
        'SELECT entity_id, state FROM world_entity_versions WHERE world_slug = ? ORDER BY entity_id',
        ['w'],
      );
      assert.equal(written.length, 100);
      assert.ok(written.every((r) => r.state === `state ${r.entity_id.slice(1)}`));
      const envs = await raw.all(
        'SELECT environment_label FROM world_environment_versions WHERE world_slug = ?',
        ['w'],
      );
      assert.equal(envs.length, 5);
    });
  });
});
