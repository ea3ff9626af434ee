/**
 * Whole-world snapshots: reading a past turn starts from the newest snapshot at or before it and
 * replays the changes after it. A snapshot is taken only once the change bytes since the last one
 * exceed its size, so snapshots never cost more than the changes they summarize; reads are the
 * same warm (snapshot cached in-process) and cold, and forks read their parent's snapshots.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { uuidv7 } from '../../src/core/ids.ts';
import { commitTurn } from '../../src/runtimes/world/commit.ts';
import { diffTurns, forkWorld, getWorld, getWorldJson } from '../../src/runtimes/world/index.ts';
import { Snapshot, type SnapshotRow } from '../../src/runtimes/world/snapshot-format.ts';
import { clearSnapshotCache, snapshotCacheBytes } from '../../src/runtimes/world/snapshots.ts';
import { getWorldRow, readWorldState, worldView } from '../../src/runtimes/world/state.ts';
import type { StagedPatch } from '../../src/runtimes/world/turn-context.ts';
import {
  applyWorldPatch,
  cloneWorld,
  type WorkingWorld,
  type WorldPatch,
} from '../../src/runtimes/world/world-patch.ts';
import type { Queryable, Store } from '../../src/store/store.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { startParkKit } from '../../src/testing/world-kit.ts';

const ENTITIES = ['bob', 'vending_machine', 'drinking_fountain', 'bob_phone', 'ant', 'crumb', 'plate'];

/** Turn t's patch: a long new state for one entity, a memory line for bob, sometimes the park. */
function patchOf(t: number): WorldPatch {
  return {
    narration: `turn ${t}`,
    effects: [
      {
        op: 'set_entity_state',
        entity_id: ENTITIES[t % ENTITIES.length]!,
        state: `state written at turn ${t} `.repeat(6),
      },
      { op: 'append_entity_memory', entity_id: 'bob', content: `remembered at turn ${t}` },
      ...(t % 5 === 0
        ? [{ op: 'set_environment_content' as const, environment_label: 'park', content: `park at ${t}` }]
        : []),
    ],
  };
}

/** Commits turns from..to of `slug` through commitTurn; returns the expected view after each. */
async function commitTurns(
  store: Store,
  slug: string,
  from: number,
  to: number,
  patchFor: (t: number) => WorldPatch = patchOf,
) {
  const world = await getWorldRow(store, slug);
  let state = await readWorldState(store, world, from - 1);
  const expected = new Map<number, ReturnType<typeof worldView>['entities']>();
  for (let t = from; t <= to; t++) {
    const attempt = {
      attempt_id: uuidv7(),
      world_slug: slug,
      attempted_turn: t,
      simulation_time: null,
      scenario_hash: world.scenario_hash,
    };
    await store.run(
      `INSERT INTO world_attempts (attempt_id, world_slug, attempted_turn, run_id, scenario_hash, status, started_at)
       VALUES (?, ?, ?, ?, ?, 'running', ?)`,
      [attempt.attempt_id, slug, t, uuidv7(), world.scenario_hash, Date.now()],
    );
    const patch = patchFor(t);
    const staged: StagedPatch = {
      patch_seq: 1,
      subject_entity_id: 'bob',
      workflow_hash: 'w',
      workflow_node_id: 'act',
      source_invocation_id: uuidv7(),
      patch,
      transitions: [],
    };
    await commitTurn(store, attempt, state, [staged]);
    state = cloneWorld(state);
    applyWorldPatch(state, patch);
    expected.set(t, worldView(slug, t, null, state).entities);
  }
  return expected;
}

const versionBytesSql = `SELECT COALESCE(SUM(LENGTH(world_slug) + LENGTH(entity_id) + 8 + LENGTH(kind) + LENGTH(environment_label)
  + LENGTH(state) + COALESCE(LENGTH(memory_append), 0)), 0) AS n FROM world_entity_versions WHERE world_slug = ? AND turn > ? AND turn <= ?`;
const envBytesSql = `SELECT COALESCE(SUM(LENGTH(world_slug) + LENGTH(environment_label) + 8 + LENGTH(content)), 0) AS n
  FROM world_environment_versions WHERE world_slug = ? AND turn > ? AND turn <= ?`;

async function changeBytes(store: Store, slug: string, after: number, upTo: number): Promise<number> {
  const a = await store.get<{ n: number }>(versionBytesSql, [slug, after, upTo]);
  const b = await store.get<{ n: number }>(envBytesSql, [slug, after, upTo]);
  return Number(a?.n ?? 0) + Number(b?.n ?? 0);
}

/** A world whose entity objects are its own (a snapshot's are frozen and shared). */
function copyOf(world: WorkingWorld): WorkingWorld {
  return {
    entities: new Map([...world.entities].map(([k, e]) => [k, { ...e }])),
    environments: new Map([...world.environments].map(([k, v]) => [k, { ...v }])),
  };
}

async function snapshotsOf(store: Store, slug: string) {
  const rows = await store.all<{ turn: number; bytes: number }>(
    'SELECT turn, bytes FROM world_snapshots WHERE world_slug = ? ORDER BY turn',
    [slug],
  );
  return rows.map((r) => ({ turn: Number(r.turn), bytes: Number(r.bytes) }));
}

describeEachStore('world snapshots', (factory) => {
  test('get_world at every past turn is the replayed state, warm and cold, across snapshots', async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startParkKit(store);
      try {
        await kit.world('park');
        const turn0 = (await getWorld(store, { world_slug: 'park', turn: 0 })).entities;
        const expected = await commitTurns(store, 'park', 1, 60);
        expected.set(0, turn0);
        const snaps = await snapshotsOf(store, 'park');
        assert.ok(snaps.length >= 3, `snapshots after turn 0 were taken: ${JSON.stringify(snaps)}`);
        for (const cold of [false, true]) {
          for (let t = 0; t <= 60; t++) {
            if (cold) clearSnapshotCache();
            const w = await getWorld(store, { world_slug: 'park', turn: t });
            assert.deepEqual(w.entities, expected.get(t), `turn ${t} (${cold ? 'cold' : 'warm'})`);
            assert.equal(w.environments.park!.content.startsWith(t >= 5 ? 'park at' : ''), true);
          }
        }
        // Answers share the cached snapshot's objects: no caller can change what the next one reads.
        const answer = await getWorld(store, { world_slug: 'park', turn: 60 });
        for (const e of Object.values(answer.entities)) {
          try {
            (e as { state: string }).state = 'tampered';
          } catch {
            // frozen
          }
        }
        assert.deepEqual(
          (await getWorld(store, { world_slug: 'park', turn: 60 })).entities,
          expected.get(60),
        );
        const d = await diffTurns(store, { world_slug: 'park', from_turn: 3, to_turn: 50 });
        assert.ok(d.entities.some((e) => e.entity_id === 'bob' && e.field === 'memory'));
      } finally {
        await kit.close();
      }
    });
  });

  test('a snapshot is taken only once the changes since the last one outweigh it', async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startParkKit(store);
      try {
        await kit.world('park');
        await commitTurns(store, 'park', 1, 60);
        const snaps = await snapshotsOf(store, 'park');
        assert.equal(snaps[0]!.turn, 0);
        for (let i = 1; i < snaps.length; i++) {
          const prev = snaps[i - 1]!;
          const cur = snaps[i]!;
          assert.ok(
            (await changeBytes(store, 'park', prev.turn, cur.turn)) > prev.bytes,
            `snapshot at ${cur.turn}: the changes since ${prev.turn} exceed ${prev.bytes} bytes`,
          );
          assert.ok(
            (await changeBytes(store, 'park', prev.turn, cur.turn - 1)) <= prev.bytes,
            `no snapshot was due before turn ${cur.turn}`,
          );
        }
        const last = snaps.at(-1)!;
        assert.ok((await changeBytes(store, 'park', last.turn, 60)) <= last.bytes, 'none is due now');
        const snapshotBytes = snaps.slice(1).reduce((n, s) => n + s.bytes, 0);
        assert.ok(
          snapshotBytes <= (await changeBytes(store, 'park', 0, 60)),
          'snapshots after turn 0 cost no more than the changes they summarize',
        );
      } finally {
        await kit.close();
      }
    });
  });

  test("a fork reads its parent's snapshots up to the fork turn, then its own turns", async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startParkKit(store);
      try {
        await kit.world('park');
        const parent = await commitTurns(store, 'park', 1, 40);
        const snaps = await snapshotsOf(store, 'park');
        const at = snaps.at(-1)!.turn + 2;
        assert.ok(at <= 40 && snaps.at(-1)!.turn > 0, `fork after a snapshot (${JSON.stringify(snaps)})`);
        await forkWorld(store, { world_slug: 'park', at_turn: at, new_world_slug: 'what-if' });
        const fork = await commitTurns(store, 'what-if', at + 1, at + 40);
        for (const cold of [false, true]) {
          if (cold) clearSnapshotCache();
          for (let t = 1; t <= at; t++)
            assert.deepEqual(
              (await getWorld(store, { world_slug: 'what-if', turn: t })).entities,
              parent.get(t),
              `fork turn ${t} is the parent's`,
            );
          for (let t = at + 1; t <= at + 40; t++)
            assert.deepEqual(
              (await getWorld(store, { world_slug: 'what-if', turn: t })).entities,
              fork.get(t),
              `fork turn ${t}`,
            );
          assert.deepEqual(
            (await getWorld(store, { world_slug: 'park', turn: 40 })).entities,
            parent.get(40),
          );
        }
        assert.ok((await snapshotsOf(store, 'what-if')).length >= 1, 'the fork takes its own snapshots');
      } finally {
        await kit.close();
      }
    });
  });

  test('get_world as JSON text is the object answer serialized, at every turn of a world and its forks, warm and cold', async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startParkKit(store);
      try {
        await kit.world('park');
        const parent = await commitTurns(store, 'park', 1, 40);
        await forkWorld(store, { world_slug: 'park', at_turn: 23, new_world_slug: 'fork' });
        const fork = await commitTurns(store, 'fork', 24, 50);
        await forkWorld(store, { world_slug: 'fork', at_turn: 31, new_world_slug: 'fork2' });
        // Text that is not ASCII and needs escaping: byte offsets differ from character offsets.
        const fork2 = await commitTurns(store, 'fork2', 32, 45, (t) => {
          const p = patchOf(t);
          return {
            ...p,
            effects: p.effects.map((e) =>
              e.op === 'set_entity_state'
                ? { ...e, state: `café ☕ "${t}" \\ \n ${'ü'.repeat(t * 4)} 😀` }
                : e.op === 'append_entity_memory'
                  ? { ...e, content: `naïve "quote" ${t}` }
                  : e,
            ),
          };
        });
        const expected = (slug: string, t: number) =>
          slug === 'park' || t <= 23
            ? parent.get(t)
            : slug === 'fork' || t <= 31
              ? fork.get(t)
              : fork2.get(t);
        assert.ok((await snapshotsOf(store, 'fork2')).length >= 1, 'fork2 has a snapshot of non-ASCII text');
        const heads = { park: 40, fork: 50, fork2: 45 };
        // Turns in a shuffled order, so warm reads both extend what is cached and read inside it.
        const reads: Array<[keyof typeof heads, number]> = [];
        for (const [slug, head] of Object.entries(heads) as Array<[keyof typeof heads, number]>)
          for (let t = 1; t <= head; t++) reads.push([slug, t]);
        reads.sort((a, b) => ((a[1] * 7919 + a[0].length) % 97) - ((b[1] * 7919 + b[0].length) % 97));
        for (const cold of [false, true]) {
          clearSnapshotCache();
          for (const [slug, t] of reads) {
            if (cold) clearSnapshotCache();
            const text = Buffer.concat(
              await getWorldJson(store, { world_slug: slug, turn: t }, { links: { self: 'x' } }),
            ).toString();
            const object = await getWorld(store, { world_slug: slug, turn: t });
            const what = `${slug} turn ${t} (${cold ? 'cold' : 'warm'})`;
            assert.equal(text, JSON.stringify({ ...object, links: { self: 'x' } }), what);
            assert.deepEqual(JSON.parse(text).entities, expected(slug, t), what);
          }
        }
        // Concurrent warm reads extend the same cached versions: each still gets its own turn.
        clearSnapshotCache();
        const answers = await Promise.all(
          reads.map(([slug, t]) => getWorldJson(store, { world_slug: slug, turn: t })),
        );
        for (const [i, [slug, t]] of reads.entries())
          assert.deepEqual(
            JSON.parse(Buffer.concat(answers[i]!).toString()).entities,
            expected(slug, t),
            `${slug} turn ${t} (concurrent)`,
          );
      } finally {
        await kit.close();
      }
    });
  });

  test('snapshots read the same with their key table stored (format 3) or built when read (format 2)', async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startParkKit(store);
      try {
        await kit.world('park');
        const expected = await commitTurns(store, 'park', 1, 40);
        const turns = Array.from({ length: 40 }, (_, i) => i + 1).sort(
          (a, b) => ((a * 7919) % 41) - ((b * 7919) % 41),
        );
        const answers = async () => {
          const out = new Map<number, string>();
          for (const t of turns) {
            clearSnapshotCache();
            const text = Buffer.concat(await getWorldJson(store, { world_slug: 'park', turn: t })).toString();
            clearSnapshotCache();
            const object = await getWorld(store, { world_slug: 'park', turn: t });
            assert.deepEqual(object.entities, expected.get(t), `turn ${t}`);
            assert.equal(text, JSON.stringify(object), `turn ${t} as text`);
            out.set(t, text);
          }
          return out;
        };
        const written = await answers();
        const rows = await store.all<SnapshotRow & { turn: number }>(
          "SELECT turn, body, entities_text, entities_index FROM world_snapshots WHERE world_slug = 'park'",
        );
        assert.ok(rows.length >= 2, 'snapshots were taken');
        // The store writes the table where it hands a row's bytes over undecoded; rewrite each
        // snapshot in the other format and read every turn again.
        const format = store.dialect.textBytesUndecoded ? 3 : 2;
        for (const r of rows) {
          assert.equal((JSON.parse(r.body) as { format: number }).format, format);
          const { stored } = Snapshot.of(copyOf(Snapshot.parse(r).world), format === 2);
          await store.run(
            'UPDATE world_snapshots SET body = ?, entities_index = ? WHERE world_slug = ? AND turn = ?',
            [stored.body, stored.entities_index, 'park', Number(r.turn)],
          );
        }
        const other = await store.get<{ body: string }>(
          "SELECT body FROM world_snapshots WHERE world_slug = 'park' ORDER BY turn DESC LIMIT 1",
        );
        assert.equal((JSON.parse(other!.body) as { format: number }).format, format === 3 ? 2 : 3);
        assert.deepEqual(await answers(), written);
      } finally {
        await kit.close();
      }
    });
  });

  test('snapshots stored in the first format (one JSON body, no text or index) read the same', async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startParkKit(store);
      try {
        await kit.world('park');
        const expected = await commitTurns(store, 'park', 1, 40);
        const snaps = await snapshotsOf(store, 'park');
        assert.ok(snaps.length >= 2, 'snapshots were taken');
        // Rewrite every snapshot as the first format stored it.
        for (const { turn } of snaps) {
          const w = await getWorld(store, { world_slug: 'park', turn });
          const body = JSON.stringify({
            entities: Object.entries(w.entities).map(([id, e]) => [
              id,
              e.kind,
              e.environment_label,
              e.state,
              e.kind === 'agent' ? (e.memory ?? '') : null,
            ]),
            environments: Object.entries(w.environments).map(([k, v]) => [k, v.content]),
          });
          await store.run(
            'UPDATE world_snapshots SET body = ?, entities_text = NULL, entities_index = NULL WHERE world_slug = ? AND turn = ?',
            [body, 'park', turn],
          );
        }
        const stored = await store.get<{ n: number }>(
          "SELECT COUNT(*) AS n FROM world_snapshots WHERE world_slug = 'park' AND entities_text IS NOT NULL",
        );
        assert.equal(Number(stored?.n), 0, 'no snapshot of the second format is left');
        for (let t = 1; t <= 40; t++) {
          clearSnapshotCache();
          const object = await getWorld(store, { world_slug: 'park', turn: t });
          assert.deepEqual(object.entities, expected.get(t), `turn ${t}`);
          clearSnapshotCache();
          const text = Buffer.concat(await getWorldJson(store, { world_slug: 'park', turn: t })).toString();
          assert.equal(text, JSON.stringify(object), `turn ${t} as text`);
        }
      } finally {
        await kit.close();
      }
    });
  });

  test('reads that miss the cache together keep one copy of the snapshot, counted once', async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startParkKit(store);
      try {
        await kit.world('park');
        await commitTurns(store, 'park', 1, 12);
        // A cold read keeps the snapshot; the next (warm) one the versions after it too.
        clearSnapshotCache();
        await getWorldJson(store, { world_slug: 'park', turn: 12 });
        await getWorldJson(store, { world_slug: 'park', turn: 12 });
        const once = snapshotCacheBytes();
        assert.ok(once > 0, 'the read cached its snapshot');
        clearSnapshotCache();
        const answers = await Promise.all(
          Array.from({ length: 4 }, () => getWorldJson(store, { world_slug: 'park', turn: 12 })),
        );
        // Those that found the snapshot cached by another kept its versions; a read after them does
        // if none did.
        await getWorldJson(store, { world_slug: 'park', turn: 12 });
        assert.equal(snapshotCacheBytes(), once, 'four concurrent cold reads count one snapshot');
        for (const a of answers) assert.deepEqual(Buffer.concat(a), Buffer.concat(answers[0]!));
      } finally {
        await kit.close();
      }
    });
  });

  test('a cold read as text reads the versions after the snapshot as one text, not row by row', async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startParkKit(store);
      try {
        await kit.world('park');
        const expected = await commitTurns(store, 'park', 1, 30);
        const reads: string[] = [];
        const counting: Queryable = {
          dialect: store.dialect,
          run: (sql, params) => store.run(sql, params),
          get: (sql, params) => {
            if (/world_entity_versions/.test(sql)) reads.push('text');
            return store.get(sql, params);
          },
          all: (sql, params) => {
            if (/world_entity_versions/.test(sql)) reads.push('rows');
            return store.all(sql, params);
          },
        };
        // Turns with versions after their snapshot (none taken at them or the turn before).
        const snaps = (await snapshotsOf(store, 'park')).map((x) => x.turn);
        const turns = [30, 29, 28, 27, 17, 16, 15, 14]
          .filter((t) => !snaps.includes(t) && !snaps.includes(t - 1))
          .slice(0, 2);
        assert.equal(turns.length, 2);
        for (const t of turns) {
          clearSnapshotCache();
          reads.length = 0;
          const text = Buffer.concat(
            await getWorldJson(counting, { world_slug: 'park', turn: t }),
          ).toString();
          assert.deepEqual(JSON.parse(text).entities, expected.get(t), `turn ${t}`);
          assert.deepEqual(reads, ['text'], `turn ${t}, cold`);
          // The next read finds the snapshot cached: it reads the rows and keeps them with it.
          reads.length = 0;
          await getWorldJson(counting, { world_slug: 'park', turn: t });
          assert.deepEqual(reads, ['rows'], `turn ${t}, warm`);
        }
      } finally {
        await kit.close();
      }
    });
  });

  test('a warm read of a turn already covered runs no version query; a later turn fetches only the turns it lacks', async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startParkKit(store);
      try {
        await kit.world('park');
        await commitTurns(store, 'park', 1, 60);
        // Three turns after a snapshot with no snapshot before the third: a, then b < a, then c > a.
        const snaps = (await snapshotsOf(store, 'park')).map((x) => x.turn);
        const from = snaps.find((t, i) => t + 3 < (snaps[i + 1] ?? 61))!;
        const [b, a, c] = [from + 1, from + 2, from + 3];
        const versionQueries: string[] = [];
        const counting: Queryable = {
          dialect: store.dialect,
          run: (sql, params) => store.run(sql, params),
          get: (sql, params) => store.get(sql, params),
          all: (sql, params) => {
            if (/_versions/.test(sql)) versionQueries.push(JSON.stringify(params));
            return store.all(sql, params);
          },
        };
        clearSnapshotCache();
        await getWorld(counting, { world_slug: 'park', turn: a });
        const first = versionQueries.length;
        assert.ok(first > 0, 'a cold read queries the versions');
        await getWorld(counting, { world_slug: 'park', turn: b });
        await getWorldJson(counting, { world_slug: 'park', turn: a });
        assert.equal(versionQueries.length, first, `turns ≤ ${a} are cached`);
        await getWorld(counting, { world_slug: 'park', turn: c });
        assert.ok(versionQueries.length > first, `turn ${c} fetches what it lacks`);
        assert.deepEqual(
          versionQueries.slice(first).map((p) => JSON.parse(p).slice(1)),
          [
            [a, c],
            [a, c],
          ],
          `only turns after ${a} are fetched`,
        );
      } finally {
        await kit.close();
      }
    });
  });
  test('a warm get_world of a world without a parent is one statement; a fork reads along its lineage', async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startParkKit(store);
      try {
        await kit.world('park');
        const parent = await commitTurns(store, 'park', 1, 12);
        await forkWorld(store, { world_slug: 'park', at_turn: 6, new_world_slug: 'what-if' });
        const statements: string[] = [];
        const counting: Queryable = {
          dialect: store.dialect,
          run: (sql, params) => store.run(sql, params),
          get: (sql, params) => {
            statements.push(sql);
            return store.get(sql, params);
          },
          all: (sql, params) => {
            statements.push(sql);
            return store.all(sql, params);
          },
        };
        for (const turn of [3, 9, undefined]) {
          await getWorld(store, { world_slug: 'park', ...(turn === undefined ? {} : { turn }) });
          statements.length = 0;
          const warm = await getWorld(counting, {
            world_slug: 'park',
            ...(turn === undefined ? {} : { turn }),
          });
          assert.equal(statements.length, 1, `turn ${turn}: ${statements.join(' | ')}`);
          assert.equal(warm.turn, turn ?? 12);
          assert.deepEqual(warm.entities, parent.get(turn ?? 12));
          statements.length = 0;
          await getWorldJson(counting, { world_slug: 'park', ...(turn === undefined ? {} : { turn }) });
          assert.equal(statements.length, 1, `as JSON, turn ${turn}`);
        }
        // The fork's turn 3 is its parent's: its snapshot and turn row are read along the lineage.
        statements.length = 0;
        const forked = await getWorld(counting, { world_slug: 'what-if', turn: 3 });
        assert.ok(statements.length > 1, 'a fork reads its lineage');
        assert.deepEqual(forked.entities, parent.get(3));
        assert.equal(
          forked.simulation_time,
          (await getWorld(store, { world_slug: 'park', turn: 3 })).simulation_time,
        );
        for (const [input, code] of [
          [{ world_slug: 'park', turn: 13 }, 'UNKNOWN_TURN'],
          [{ world_slug: 'park', turn: -1 }, 'UNKNOWN_TURN'],
          [{ world_slug: 'park', turn: 1.5 }, 'UNKNOWN_TURN'],
          [{ world_slug: 'nowhere' }, 'UNKNOWN_WORLD'],
        ] as const)
          await assert.rejects(getWorld(store, input), { code }, JSON.stringify(input));
      } finally {
        await kit.close();
      }
    });
  });
});
