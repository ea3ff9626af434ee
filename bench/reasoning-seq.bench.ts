/**
 * The reasoning seq under concurrent writers: notes committed with `notesCommit` by 1, 4 and 16
 * writers, each on its own workspace, for a fixed time; writes/s in total. Noema takes seqs from
 * a per-workspace block (src/memory/reasoning/seq.ts). The anchor is the design it replaced: the
 * same insert with its seq from the one global counter row, held until commit (so writers to
 * different workspaces wait for each other on PostgreSQL). Sides alternate run by run; each
 * figure is the median of the repeats.
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

/** A note as written before per-workspace blocks: its seq from the one global counter row. */
async function globalRowNote(store: Store, workspace: string): Promise<void> {
  await store.transaction(async (tx) => {
    await tx.get('SELECT workspace FROM reasoning_workspaces WHERE workspace = ?', [workspace]);
    const row = await tx.get<{ value: number }>(
      'UPDATE bench_global_seq SET value = value + 1 WHERE id = 1 RETURNING value',
    );
    // Its own value range, so these rows never collide with the ones notesCommit writes.
    const seq = 1_000_000_000_000 + Number(row?.value);
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
    'reasoning memory: writes/s with 1, 4, 16 concurrent writers on different workspaces (per-workspace seq blocks vs one global row)',
  async run(ctx) {
    const ms = ctx.quick ? 500 : 2000;
    const repeats = ctx.quick ? 1 : 3;
    for (const kind of selectedStores()) {
      const { store, dispose } = await openTestStore(kind);
      try {
        const spaces = Array.from({ length: Math.max(...WRITERS) }, (_, i) => `ws-${i}`);
        for (const workspace of spaces) await init(store, { workspace });
        await store.run('CREATE TABLE bench_global_seq (id INTEGER PRIMARY KEY, value BIGINT NOT NULL)');
        await store.run('INSERT INTO bench_global_seq (id, value) VALUES (1, 0)');
        const global = (w: number) =>
          notesCommit(store, {
            workspace: spaces[w]!,
            doc: 'notes',
            content: 'a note of ordinary length, about as long as an agent writes',
          }).then(() => {});
        const local = (w: number) => globalRowNote(store, spaces[w]!);
        const perWriters = new Map<number, [number, number]>();
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
            metric: 'writes/s (seq blocks per workspace)',
            unit: 'writes/s',
            value: median(a),
            anchor: 'same writes, one global seq row held until commit',
            anchor_value: median(b),
            // For throughput, higher is better: ratio = Noema ÷ anchor.
            ratio: Math.round((median(a) / median(b)) * 1000) / 1000,
          });
          perWriters.set(writers, [median(a), median(b)]);
        }
        // Scale-out on its own: what more writers on more workspaces add, on each side.
        const [a1, b1] = perWriters.get(WRITERS[0]!)!;
        const [aN, bN] = perWriters.get(WRITERS.at(-1)!)!;
        ctx.row({
          case: `scale-out, ${WRITERS.at(-1)} writers ÷ ${WRITERS[0]} [${kind}]`,
          metric: 'throughput ratio (seq blocks per workspace)',
          unit: '×',
          value: aN / a1,
          anchor: 'one global seq row held until commit',
          anchor_value: bN / b1,
          ratio: Math.round((aN / a1 / (bN / b1)) * 1000) / 1000,
        });
      } finally {
        await dispose();
      }
    }
  },
} satisfies Bench;
