/**
 * `node bench/search/fts-cost.ts`: what SQLite's FTS5 costs per document indexed, on this machine,
 * in the shape Noema's deferred search index writes it (`src/store/sqlite/full-text.ts`: a
 * contentless table with deletes, a batch of rows per transaction) — on a database file with
 * Noema's pragmas (WAL, `synchronous = NORMAL`, no automatic checkpoint, a passive checkpoint every
 * 4 batches as the store's worker would), and in memory beside it (what is left without the pages
 * written). Two sizes of document (one short sentence; 100 words, the size of a world prompt), three
 * batch sizes, each over the same documents. Prints µs per document. `docs/design/search-index-cost.md`
 * says what the figures mean for the runs.
 */
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';

const WORDS =
  'alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau'.split(
    ' ',
  );
const DOCS = {
  sentence: (i: number) => `Bob${i % 97} waits by the vending machine on turn ${i}.`,
  '100 words': (i: number) =>
    Array.from({ length: 100 }, (_, k) => `${WORDS[(i * 7 + k) % WORDS.length]}${k % 5}`).join(' '),
};

function perDocument(where: 'file' | 'memory', doc: (i: number) => string, batch: number, n: number): number {
  const path = join(tmpdir(), `noema-fts-cost-${process.pid}-${batch}.db`);
  const db = new DatabaseSync(where === 'file' ? path : ':memory:');
  try {
    if (where === 'file')
      db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 0');
    db.exec(
      "CREATE VIRTUAL TABLE f USING fts5(text, kind, content='', contentless_delete=1, tokenize='unicode61')",
    );
    const insert = db.prepare('INSERT INTO f (rowid, text, kind) VALUES (?, ?, ?)');
    const texts = Array.from({ length: n }, (_, i) => doc(i));
    let ns = 0n;
    for (let i = 0, b = 0; i < n; i += batch, b++) {
      const t0 = process.hrtime.bigint();
      db.exec('BEGIN IMMEDIATE');
      for (let k = i; k < Math.min(n, i + batch); k++) insert.run(-(k + 1), texts[k]!, 'answer');
      db.exec('COMMIT');
      ns += process.hrtime.bigint() - t0;
      if (where === 'file' && b % 4 === 3) db.exec('PRAGMA wal_checkpoint(PASSIVE)');
    }
    return Number(ns) / 1000 / n;
  } finally {
    db.close();
    for (const s of ['', '-wal', '-shm']) rmSync(path + s, { force: true });
  }
}

console.log('document    batch   file (µs/doc)   memory (µs/doc)');
for (const [name, doc] of Object.entries(DOCS)) {
  const n = name === 'sentence' ? 20_000 : 5_000;
  for (const batch of [64, 256, 1024]) {
    const file = perDocument('file', doc, batch, n);
    const memory = perDocument('memory', doc, batch, n);
    console.log(
      `${name.padEnd(10)}  ${String(batch).padStart(5)}   ${file.toFixed(1).padStart(13)}   ${memory.toFixed(1).padStart(15)}`,
    );
  }
}
