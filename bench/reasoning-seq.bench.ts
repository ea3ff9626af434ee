/**
 * The reasoning memory's one global seq row under concurrent writers: notes committed with
 * `notesCommit` by 1, 4 and 16 writers, each on its own workspace, for a fixed time; writes/s in
 * total. The anchor is the same transaction shape with the counter row per workspace (a scratch
 * table; the entry's seq is made unique from it), which is what a per-workspace sequence would
 * cost: the gap between the two at 4 and 16 writers is what the shared row costs in scale-out.
 * Sides alternate run by run; each figure is the median of the repeats.
 */
import { notesCommit } from '../src/memory/reasoning/docs/notes.ts';
import { init } from '../src/memory/reasoning/workspace-ops.ts';
import type { Store } from '../src/store/store.ts';
import { openTestStore, selectedStores } from '../src/testing/stores.ts';
import type { Bench } from './lib/harness.ts';

const WRITERS = [1, 4, 16];

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
}

/** Runs `writers` loops of `write(w, i)` for `ms` milliseconds; returns writes per second. */
async function throughput(
  writers: number,
  ms: number,
  write: (w: number, i: number) => Promise<void>,
): Promise<number> {
  const until = Date.now() + ms;
  let done = 0;
  await Promise.all(
    Array.from({ length: writers }, async (_, w) => {
      for (let i = 0; Date.now() < until; i++) {
        await write(w, i);
        done++;
      }
    }),
  );
  return done / (ms / 1000);
}

/** The same transaction as notesCommit's, with the counter row per workspace. */
async function perWorkspaceNote(store: Store, workspace: string, w: number): Promise<void> {
  await store.transaction(async (tx) => {
    await tx.get('SELECT workspace FROM reasoning_workspaces WHERE workspace = ?', [workspace]);
    const row = await tx.get<{ value: number }>(
      'UPDATE bench_workspace_seq SET value = value + 1 WHERE workspace = ? RETURNING value',
      [workspace],
    );
    // Unique across workspaces without a shared row: (per-workspace value, writer) interleaved.
    const seq = 1_000_000_000 + Number(row?.value) * 64 + w;
    await tx.run(
      `INSERT INTO doc_entries (seq, ts, workspace, branch, doc, kind, content, origin_seq)
       VALUES (?, ?, ?, 'main', 'notes', 'note', ?, ?)`,
      [seq, Date.now(), workspace, 'a note of ordinary length, about as long as an agent writes', seq],
    );
  });
}

export default {
  name: 'reasoning-seq',
  description:
    'reasoning memory: writes/s with 1, 4, 16 concurrent writers on different workspaces (global seq row)',
  async run(ctx) {
    const ms = ctx.quick ? 500 : 2000;
    const repeats = ctx.quick ? 1 : 3;
    for (const kind of selectedStores()) {
      const { store, dispose } = await openTestStore(kind);
      try {
        const spaces = Array.from({ length: Math.max(...WRITERS) }, (_, i) => `ws-${i}`);
        for (const workspace of spaces) await init(store, { workspace });
        await store.run(
          'CREATE TABLE bench_workspace_seq (workspace TEXT PRIMARY KEY, value BIGINT NOT NULL)',
        );
        for (const workspace of spaces)
          await store.run('INSERT INTO bench_workspace_seq (workspace, value) VALUES (?, 0)', [workspace]);
        const global = (w: number) =>
          notesCommit(store, {
            workspace: spaces[w]!,
            doc: 'notes',
            content: 'a note of ordinary length, about as long as an agent writes',
          }).then(() => {});
        const local = (w: number) => perWorkspaceNote(store, spaces[w]!, w);
        for (const writers of WRITERS) {
          const a: number[] = [];
          const b: number[] = [];
          for (let r = 0; r < repeats; r++) {
            if (r % 2 === 0) {
              a.push(await throughput(writers, ms, global));
              b.push(await throughput(writers, ms, local));
            } else {
              b.push(await throughput(writers, ms, local));
              a.push(await throughput(writers, ms, global));
            }
          }
          ctx.row({
            case: `notes, ${writers} writer(s) on ${writers} workspace(s) [${kind}]`,
            metric: 'writes/s (global seq row)',
            unit: 'writes/s',
            value: median(a),
            anchor: 'same writes, counter row per workspace',
            anchor_value: median(b),
            // For throughput, higher is better: ratio = Noema ÷ anchor.
            ratio: Math.round((median(a) / median(b)) * 1000) / 1000,
          });
        }
      } finally {
        await dispose();
      }
    }
  },
} satisfies Bench;
