/**
 * Splits Noema's gap to the commit floor into SQL and JS: times, on node:sqlite alone, the floor's
 * INSERT against the fenced journal INSERT Noema runs on the real schema, with BEGIN/COMMIT
 * exec'd or prepared. `node bench/engine/sql-floor.ts [steps] [size]`.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { migrations } from '../../src/app/migrations.ts';
import { sqliteDialect } from '../../src/store/sqlite/sqlite-store.ts';

const steps = Number(process.argv[2] ?? 2000);
const size = Number(process.argv[3] ?? 32);
const msg = 'x'.repeat(size);

function open(): DatabaseSync {
  const db = new DatabaseSync(join(mkdtempSync(join(tmpdir(), 'noema-sqlfloor-')), 'db'));
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = NORMAL');
  return db;
}

function p50(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

type Case = { name: string; setup(db: DatabaseSync): (i: number) => void; pragmas?: string[] };

function control(db: DatabaseSync, prepared: boolean): { begin(): void; commit(): void } {
  if (!prepared) return { begin: () => db.exec('BEGIN IMMEDIATE'), commit: () => db.exec('COMMIT') };
  const b = db.prepare('BEGIN IMMEDIATE');
  const c = db.prepare('COMMIT');
  return { begin: () => b.run(), commit: () => c.run() };
}

const fenced = `INSERT INTO engine_journal (jid, body)
     SELECT ?, ? WHERE EXISTS (SELECT 1 FROM engine_runs WHERE run_pk = ? AND lease_owner = ?)
     ON CONFLICT DO NOTHING`;

function schema(db: DatabaseSync, fk: boolean): void {
  if (fk) db.exec('PRAGMA foreign_keys = ON');
  for (const m of migrations) for (const s of m.up(sqliteDialect)) db.exec(s);
  db.exec("INSERT INTO engine_graphs VALUES ('g', '{}', 0)");
  db.exec(
    "INSERT INTO engine_runs (run_id, graph_hash, status, lease_owner, lease_expires_at, created_at, updated_at) VALUES ('r', 'g', 'running', 'me', 0, 0, 0)",
  );
}

const cases: Case[] = [
  {
    name: 'floor: steps INSERT, exec BEGIN/COMMIT',
    setup(db) {
      db.exec('CREATE TABLE steps (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
      const ins = db.prepare('INSERT INTO steps (body) VALUES (?)');
      const c = control(db, false);
      return () => {
        c.begin();
        ins.run(msg);
        c.commit();
      };
    },
  },
  {
    name: 'floor: steps INSERT, prepared BEGIN/COMMIT',
    setup(db) {
      db.exec('CREATE TABLE steps (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
      const ins = db.prepare('INSERT INTO steps (body) VALUES (?)');
      const c = control(db, true);
      return () => {
        c.begin();
        ins.run(msg);
        c.commit();
      };
    },
  },
  {
    name: 'journal: plain INSERT (jid, body), prepared control',
    setup(db) {
      schema(db, true);
      const ins = db.prepare('INSERT INTO engine_journal (jid, body) VALUES (?, ?)');
      const c = control(db, true);
      return (i) => {
        c.begin();
        ins.run(2 ** 24 + i, msg);
        c.commit();
      };
    },
  },
  {
    name: 'journal: fenced INSERT, prepared control, fk on',
    setup(db) {
      schema(db, true);
      const ins = db.prepare(fenced);
      const c = control(db, true);
      return (i) => {
        c.begin();
        if (ins.run(2 ** 24 + i, msg, 1, 'me').changes !== 1) throw new Error('fenced');
        c.commit();
      };
    },
  },
  {
    name: 'journal: fenced INSERT … SELECT FROM engine_runs (no EXISTS), prepared control',
    setup(db) {
      schema(db, true);
      const ins = db.prepare(`INSERT INTO engine_journal (jid, body)
     SELECT ?, ? FROM engine_runs WHERE run_pk = ? AND lease_owner = ?
     ON CONFLICT DO NOTHING`);
      const c = control(db, true);
      return (i) => {
        c.begin();
        if (ins.run(2 ** 24 + i, msg, 1, 'me').changes !== 1) throw new Error('fenced');
        c.commit();
      };
    },
  },
  {
    name: 'journal: fenced INSERT, exec control, fk on',
    setup(db) {
      schema(db, true);
      const ins = db.prepare(fenced);
      const c = control(db, false);
      return (i) => {
        c.begin();
        if (ins.run(2 ** 24 + i, msg, 1, 'me').changes !== 1) throw new Error('fenced');
        c.commit();
      };
    },
  },
];

const rounds = 5;
const results = new Map<string, number[]>();
for (let r = 0; r < rounds; r++) {
  for (const k of cases) {
    const db = open();
    const step = k.setup(db);
    for (let i = 0; i < 20; i++) step(i);
    const us: number[] = [];
    for (let i = 20; i < steps + 20; i++) {
      const t0 = process.hrtime.bigint();
      step(i);
      us.push(Number(process.hrtime.bigint() - t0) / 1000);
    }
    db.close();
    results.set(k.name, [...(results.get(k.name) ?? []), p50(us)]);
  }
}
for (const [name, xs] of results)
  console.log(`${p50(xs).toFixed(2).padStart(7)} µs  ${name}  (${xs.map((x) => x.toFixed(2)).join(' ')})`);
