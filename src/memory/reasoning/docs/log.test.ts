// Specs of the reasoning log on both stores: seq, effective views, show pagination and budgets,
// branches, directional and merge-aware diff, merge idempotency, and validation that changes nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Store } from '../../../store/store.ts';
import { describeEachStore } from '../../../testing/each-store.ts';
import { branchCreate, branchList, checkout } from '../branch-ops.ts';
import { currentSeq } from '../seq.ts';
import { init, status } from '../workspace-ops.ts';
import { DIFF_SCAN_BUDGET } from './diff.ts';
import { diff } from './diff-op.ts';
import { appendEntry } from './entries.ts';
import { merge } from './merge.ts';
import { notesCommit } from './notes.ts';
import { show } from './show.ts';

const W = 'ws';
const note = (store: Store, branch: string, content: string, doc = 'notes') =>
  notesCommit(store, { workspace: W, branch, doc, content }).then((r) => r.entry);
const contents = (entries: Array<{ content: string }>) => entries.map((e) => e.content);

async function rejects(p: Promise<unknown>, code: string): Promise<void> {
  await assert.rejects(p, (e: { code?: string }) => {
    assert.equal(e.code, code);
    return true;
  });
}

describeEachStore('reasoning log', (factory) => {
  const withStore = (name: string, fn: (store: Store) => Promise<void>) =>
    test(name, async () => {
      const { store, dispose } = await factory.open();
      try {
        await init(store, { workspace: W });
        await fn(store);
      } finally {
        await dispose();
      }
    });

  withStore('seq is global and strictly increasing across branches and docs; ts is in ms', async (store) => {
    await branchCreate(store, { workspace: W, name: 'b' });
    const before = Date.now();
    const a = await note(store, 'main', 'one');
    const b = await note(store, 'b', 'two', 'other');
    const c = await note(store, 'main', 'three');
    assert.ok(a.seq < b.seq && b.seq < c.seq);
    assert.equal(await currentSeq(store, W), c.seq);
    assert.ok(a.ts >= before && a.ts <= Date.now() + 1);
    assert.equal(a.kind, 'note');
  });

  withStore('tools refuse a workspace that was never initialized, naming branchmind_init', async (store) => {
    await assert.rejects(status(store, { workspace: 'nope' }), (e: { code: string; hint: string }) => {
      assert.equal(e.code, 'UNKNOWN_WORKSPACE');
      assert.match(e.hint, /branchmind_init/);
      return true;
    });
    await rejects(
      notesCommit(store, { workspace: 'nope', branch: 'main', doc: 'notes', content: 'x' }),
      'UNKNOWN_WORKSPACE',
    );
    await rejects(status(store, { workspace: 'bad space' }), 'INVALID_INPUT');
  });

  withStore('init is idempotent and status reports the checkout and last seq', async (store) => {
    const again = await init(store, { workspace: W });
    assert.equal(again.created, false);
    assert.ok(again.schema_version >= 104);
    await note(store, 'main', 'x');
    const s = await status(store, { workspace: W });
    assert.equal(s.checkout, 'main');
    assert.equal(s.last_seq, await currentSeq(store, W));
  });

  withStore(
    'a derived branch sees its base up to base_seq plus its own entries, copying nothing',
    async (store) => {
      await note(store, 'main', 'm1');
      const { branch } = await branchCreate(store, { workspace: W, name: 'feat', from: 'main' });
      await note(store, 'main', 'm2-after-branching');
      await note(store, 'feat', 'f1');
      const view = await show(store, { workspace: W, branch: 'feat', doc: 'notes' });
      assert.deepEqual(contents(view.entries), ['f1', 'm1']);
      assert.equal(branch.base_seq, 1);
      const rows = await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM doc_entries');
      assert.equal(Number(rows?.n), 3);
      const main = await show(store, { workspace: W, branch: 'main', doc: 'notes' });
      assert.deepEqual(contents(main.entries), ['m2-after-branching', 'm1']);
    },
  );

  withStore('cutoffs narrow through ancestors', async (store) => {
    await note(store, 'main', 'm1');
    await branchCreate(store, { workspace: W, name: 'a', from: 'main' });
    await note(store, 'main', 'm2');
    await note(store, 'a', 'a1');
    await branchCreate(store, { workspace: W, name: 'b', from: 'a' });
    await note(store, 'a', 'a2');
    await note(store, 'main', 'm3');
    await note(store, 'b', 'b1');
    const view = await show(store, { workspace: W, branch: 'b', doc: 'notes' });
    assert.deepEqual(contents(view.entries), ['b1', 'a1', 'm1']);
  });

  withStore(
    'show paginates by seq with has_more and next_cursor correct at every boundary',
    async (store) => {
      for (let i = 1; i <= 7; i++) await note(store, 'main', `n${i}`);
      for (const limit of [1, 2, 3, 6, 7, 8]) {
        const seen: string[] = [];
        let cursor: number | null = null;
        for (;;) {
          const page = await show(store, { workspace: W, branch: 'main', doc: 'notes', limit, cursor });
          seen.push(...contents(page.entries));
          assert.equal(page.pagination.count, page.entries.length);
          assert.equal(page.pagination.limit, limit);
          if (!page.pagination.has_more) {
            assert.equal(page.pagination.next_cursor, undefined);
            break;
          }
          assert.equal(page.entries.length, limit);
          assert.equal(page.pagination.next_cursor, page.entries.at(-1)?.seq);
          cursor = page.pagination.next_cursor ?? null;
        }
        assert.deepEqual(seen, ['n7', 'n6', 'n5', 'n4', 'n3', 'n2', 'n1'], `limit ${limit}`);
      }
      const tail = await show(store, { workspace: W, branch: 'main', doc: 'notes', cursor: 1 });
      assert.deepEqual(tail.entries, []);
      assert.equal(tail.pagination.has_more, false);
    },
  );

  withStore(
    'max_chars drops the oldest entries, says truncated, and lets the caller continue',
    async (store) => {
      for (let i = 1; i <= 5; i++) await note(store, 'main', `${'x'.repeat(200)}${i}`);
      const full = await show(store, { workspace: W, branch: 'main', doc: 'notes' });
      assert.equal(full.truncated, false);
      const small = await show(store, { workspace: W, branch: 'main', doc: 'notes', max_chars: 700 });
      assert.equal(small.truncated, true);
      assert.ok(JSON.stringify(small).length <= 700);
      assert.ok(small.entries.length >= 1 && small.entries.length < 5);
      assert.equal(small.pagination.has_more, true);
      assert.equal(small.pagination.next_cursor, small.entries.at(-1)?.seq);
      const rest = await show(store, {
        workspace: W,
        branch: 'main',
        doc: 'notes',
        cursor: small.pagination.next_cursor ?? null,
      });
      assert.equal(rest.entries.length, 5 - small.entries.length);
      await rejects(
        show(store, { workspace: W, branch: 'main', doc: 'notes', max_chars: 20 }),
        'BUDGET_TOO_SMALL',
      );
    },
  );

  withStore(
    'an entry too large for the budget is dropped explicitly with a cursor that still includes it',
    async (store) => {
      await note(store, 'main', 'y'.repeat(5000));
      const page = await show(store, { workspace: W, branch: 'main', doc: 'notes', max_chars: 400 });
      assert.deepEqual(page.entries, []);
      assert.equal(page.truncated, true);
      assert.equal(page.pagination.has_more, true);
      const again = await show(store, {
        workspace: W,
        branch: 'main',
        doc: 'notes',
        cursor: page.pagination.next_cursor ?? null,
      });
      assert.equal(again.entries.length, 1);
    },
  );

  withStore(
    'branch create, list and checkout; checkout is the default branch for reads and writes',
    async (store) => {
      await branchCreate(store, { workspace: W, name: 'x' });
      await rejects(branchCreate(store, { workspace: W, name: 'x' }), 'BRANCH_EXISTS');
      await rejects(branchCreate(store, { workspace: W, name: 'y', from: 'missing' }), 'UNKNOWN_BRANCH');
      await rejects(branchCreate(store, { workspace: W, name: 'task/TASK-001' }), 'INVALID_INPUT');
      await rejects(checkout(store, { workspace: W, ref: 'missing' }), 'UNKNOWN_BRANCH');
      const co = await checkout(store, { workspace: W, ref: 'x' });
      assert.deepEqual(co, { workspace: W, previous: 'main', current: 'x' });
      const e = await notesCommit(store, { workspace: W, doc: 'notes', content: 'on x' });
      assert.equal(e.entry.branch, 'x');
      const { branch } = await branchCreate(store, { workspace: W, name: 'z' });
      assert.equal(branch.base_branch, 'x');
      const list = (await branchList(store, { workspace: W })) as {
        branches: Array<{ name: string }>;
        checkout: string;
      };
      assert.deepEqual(
        list.branches.map((b) => b.name),
        ['main', 'x', 'z'],
      );
      assert.equal(list.checkout, 'x');
      const one = (await branchList(store, { workspace: W, limit: 1 })) as {
        branches: unknown[];
        has_more: boolean;
      };
      assert.equal(one.branches.length, 1);
      assert.equal(one.has_more, true);
    },
  );

  withStore('ancestry depth is bounded', async (store) => {
    let from = 'main';
    for (let i = 1; i <= 64; i++) {
      await branchCreate(store, { workspace: W, name: `d${i}`, from });
      from = `d${i}`;
    }
    await rejects(branchCreate(store, { workspace: W, name: 'too-deep', from }), 'BRANCH_TOO_DEEP');
    await note(store, 'main', 'root');
    await note(store, 'd64', 'leaf');
    const view = await show(store, { workspace: W, branch: 'd64', doc: 'notes' });
    assert.deepEqual(contents(view.entries), ['leaf']);
  });

  withStore('a cycle in stored ancestry cannot loop the effective view', async (store) => {
    await branchCreate(store, { workspace: W, name: 'p' });
    await branchCreate(store, { workspace: W, name: 'q', from: 'p' });
    await store.run(
      "UPDATE reasoning_branches SET base_branch = 'q', base_seq = 100 WHERE workspace = ? AND name = 'p'",
      [W],
    );
    await note(store, 'q', 'q1');
    const view = await show(store, { workspace: W, branch: 'q', doc: 'notes' });
    assert.deepEqual(contents(view.entries), ['q1']);
  });

  withStore('diff is directional', async (store) => {
    await note(store, 'main', 'base');
    await branchCreate(store, { workspace: W, name: 'a' });
    await note(store, 'a', 'only-a');
    await note(store, 'main', 'only-main');
    const ab = await diff(store, { workspace: W, from: 'main', to: 'a' });
    assert.deepEqual(contents(ab.entries), ['only-a']);
    const ba = await diff(store, { workspace: W, from: 'a', to: 'main' });
    assert.deepEqual(contents(ba.entries), ['only-main']);
    await rejects(diff(store, { workspace: W, from: 'main', to: 'nope' }), 'UNKNOWN_BRANCH');
  });

  withStore(
    'merge copies only notes, with source_event_id merge:<branch>:<seq>, and is idempotent',
    async (store) => {
      await branchCreate(store, { workspace: W, name: 'a' });
      const n1 = await note(store, 'a', 'idea 1');
      await store.transaction(async (tx) => {
        const { appendEntry } = await import('./entries.ts');
        await appendEntry(tx, {
          workspace: W,
          branch: 'a',
          doc: 'notes',
          kind: 'trace',
          content: 'machine event',
        });
      });
      const n2 = await note(store, 'a', 'idea 2');
      const dry = await merge(store, { workspace: W, from: 'a', into: 'main', dry_run: true });
      assert.equal(dry.merged, 2);
      assert.equal(dry.skipped, 1);
      assert.deepEqual((await show(store, { workspace: W, branch: 'main', doc: 'notes' })).entries, []);
      const first = await merge(store, { workspace: W, from: 'a', into: 'main' });
      assert.equal(first.merged, 2);
      const main = await show(store, { workspace: W, branch: 'main', doc: 'notes' });
      assert.deepEqual(contents(main.entries), ['idea 2', 'idea 1']);
      assert.deepEqual(
        main.entries.map((e) => e.source_event_id),
        [`merge:a:${n2.seq}`, `merge:a:${n1.seq}`],
      );
      assert.ok(main.entries.every((e) => e.kind === 'note'));
      const second = await merge(store, { workspace: W, from: 'a', into: 'main' });
      assert.equal(second.merged, 0);
      assert.equal((await show(store, { workspace: W, branch: 'main', doc: 'notes' })).entries.length, 2);
    },
  );

  withStore('merge pages through large merges with cursor and limit', async (store) => {
    await branchCreate(store, { workspace: W, name: 'a' });
    for (let i = 1; i <= 7; i++) await note(store, 'a', `a${i}`);
    let cursor: number | null = null;
    let total = 0;
    let calls = 0;
    for (;;) {
      const r = await merge(store, { workspace: W, from: 'a', into: 'main', limit: 3, cursor });
      total += r.merged;
      calls += 1;
      if (!r.pagination.has_more) break;
      cursor = r.pagination.next_cursor ?? null;
    }
    assert.equal(total, 7);
    assert.equal(calls, 3);
    const main = await show(store, { workspace: W, branch: 'main', doc: 'notes', limit: 50 });
    assert.deepEqual(contents(main.entries).sort(), ['a1', 'a2', 'a3', 'a4', 'a5', 'a6', 'a7']);
    assert.equal((await merge(store, { workspace: W, from: 'a', into: 'main' })).merged, 0);
  });

  withStore(
    'diff is merge-aware: after merge(a→b) neither direction lists merged notes; later notes show',
    async (store) => {
      await note(store, 'main', 'shared');
      await branchCreate(store, { workspace: W, name: 'a' });
      await branchCreate(store, { workspace: W, name: 'b' });
      await note(store, 'a', 'a-before');
      await note(store, 'b', 'b-before');
      await merge(store, { workspace: W, from: 'a', into: 'b' });
      assert.deepEqual(contents((await diff(store, { workspace: W, from: 'a', to: 'b' })).entries), [
        'b-before',
      ]);
      assert.deepEqual(contents((await diff(store, { workspace: W, from: 'b', to: 'a' })).entries), []);
      await note(store, 'a', 'a-after');
      await note(store, 'b', 'b-after');
      assert.deepEqual(contents((await diff(store, { workspace: W, from: 'a', to: 'b' })).entries), [
        'b-after',
        'b-before',
      ]);
      assert.deepEqual(contents((await diff(store, { workspace: W, from: 'b', to: 'a' })).entries), [
        'a-after',
      ]);
      // Copies of copies are still the same note.
      await branchCreate(store, { workspace: W, name: 'c', from: 'main' });
      await merge(store, { workspace: W, from: 'b', into: 'c' });
      assert.deepEqual(contents((await diff(store, { workspace: W, from: 'c', to: 'a' })).entries), [
        'a-after',
      ]);
    },
  );

  withStore(
    'diff stays bounded after a merge larger than its scan budget and still pages to the true answer',
    async (store) => {
      await branchCreate(store, { workspace: W, name: 'a' });
      const n = DIFF_SCAN_BUDGET + 100;
      await store.transaction(async (tx) => {
        for (let i = 0; i < n; i++)
          await appendEntry(tx, { workspace: W, branch: 'a', doc: 'notes', kind: 'note', content: `a${i}` });
      });
      for (let cursor: number | null = null, guard = 0; guard < 10; guard++) {
        const r = await merge(store, { workspace: W, from: 'a', into: 'main', limit: 500, cursor });
        if (!r.pagination.has_more) break;
        cursor = r.pagination.next_cursor ?? null;
      }
      await note(store, 'a', 'late');
      for (const [from, to, expected] of [
        ['main', 'a', ['late']],
        ['a', 'main', []],
      ] as const) {
        const seen: string[] = [];
        let calls = 0;
        let cursor: number | null = null;
        for (;;) {
          const page = await diff(store, { workspace: W, from, to, cursor });
          calls += 1;
          seen.push(...contents(page.entries));
          if (!page.pagination.has_more) break;
          assert.ok(
            page.pagination.next_cursor !== undefined &&
              (cursor === null || page.pagination.next_cursor < cursor),
          );
          cursor = page.pagination.next_cursor ?? null;
        }
        assert.deepEqual(seen, expected);
        assert.ok(calls >= 2, `diff(${from}→${to}) needed ${calls} bounded calls`);
      }
    },
  );

  withStore('invalid input is a typed error and writes nothing', async (store) => {
    const before = await currentSeq(store, W);
    const bad: Array<[() => Promise<unknown>, string]> = [
      [
        () => notesCommit(store, { workspace: W, branch: 'main', doc: 'notes', content: '' }),
        'INVALID_INPUT',
      ],
      [
        () => notesCommit(store, { workspace: W, branch: 'main', doc: 'notes', content: 'a\u0000b' }),
        'INVALID_INPUT',
      ],
      [
        () =>
          notesCommit(store, { workspace: W, branch: 'main', doc: 'notes', content: 'x'.repeat(100_001) }),
        'INVALID_INPUT',
      ],
      [
        () => notesCommit(store, { workspace: W, branch: 'main', doc: 'bad doc', content: 'x' }),
        'INVALID_INPUT',
      ],
      [
        () => notesCommit(store, { workspace: W, branch: 'nope', doc: 'notes', content: 'x' }),
        'UNKNOWN_BRANCH',
      ],
      [() => notesCommit(store, { workspace: W, target: 'TASK-001', content: 'x' }), 'UNKNOWN_TARGET'],
      [
        () =>
          notesCommit(store, {
            workspace: W,
            target: 'TASK-001',
            branch: 'main',
            doc: 'notes',
            content: 'x',
          }),
        'INVALID_INPUT',
      ],
      [
        () => notesCommit(store, { workspace: W, branch: 'main', doc: 'notes', content: 'x', title: 'a\nb' }),
        'INVALID_INPUT',
      ],
      [
        () =>
          notesCommit(store, { workspace: W, branch: 'main', doc: 'notes', content: 'x', meta: [] as never }),
        'INVALID_INPUT',
      ],
      [() => show(store, { workspace: W, branch: 'main', doc: 'notes', cursor: -1 }), 'INVALID_INPUT'],
      [() => show(store, { workspace: W, branch: 'main', doc: 'notes', limit: 0 }), 'INVALID_INPUT'],
      [() => merge(store, { workspace: W, from: 'main', into: 'nope' }), 'UNKNOWN_BRANCH'],
    ];
    for (const [p, code] of bad) await rejects(p(), code);
    assert.equal(await currentSeq(store, W), before);
  });
});
