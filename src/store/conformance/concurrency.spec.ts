/** Conformance: several processes (and pool clients) writing one store lose no writes. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { StoreFactory } from '../../testing/each-store.ts';

const worker = fileURLToPath(new URL('./fixtures/append-worker.ts', import.meta.url));

function startWorker(url: string, name: string, count: number, parallel: number) {
  return spawn(process.execPath, [worker, url, name, String(count), String(parallel)], { stdio: 'ignore' });
}

function runWorker(url: string, name: string, count: number, parallel: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [worker, url, name, String(count), String(parallel)], {
      stdio: ['ignore', 'inherit', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`worker ${name} exited ${code}: ${stderr}`)),
    );
  });
}

export function concurrencySpecs(factory: StoreFactory): void {
  test('two processes appending to one store lose no writes', async () => {
    const ts = await factory.open();
    try {
      await ts.store.run(
        `CREATE TABLE appends (seq ${ts.store.dialect.autoId}, worker TEXT NOT NULL, i INTEGER NOT NULL)`,
      );
      await ts.store.run('CREATE TABLE counters (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)');
      await ts.store.run('INSERT INTO counters (id, n) VALUES (1, 0)');
      // On PostgreSQL each worker also runs several pool clients at once.
      const parallel = ts.store.capabilities.concurrentWriters ? 4 : 1;
      await Promise.all([runWorker(ts.url, 'a', 150, parallel), runWorker(ts.url, 'b', 150, parallel)]);
      const n = await ts.store.get<{ n: number }>('SELECT n FROM counters WHERE id = 1');
      assert.equal(n?.n, 300);
      const rows = await ts.store.all<{ worker: string; c: number }>(
        'SELECT worker, COUNT(*) AS c FROM appends GROUP BY worker ORDER BY worker',
      );
      assert.deepEqual(
        rows.map((r) => [r.worker, Number(r.c)]),
        [
          ['a', 150],
          ['b', 150],
        ],
      );
    } finally {
      await ts.dispose();
    }
  });

  test('a writer killed with SIGKILL mid-stream leaves only whole transactions', async () => {
    const ts = await factory.open();
    try {
      await ts.store.run(
        `CREATE TABLE appends (seq ${ts.store.dialect.autoId}, worker TEXT NOT NULL, i INTEGER NOT NULL)`,
      );
      await ts.store.run('CREATE TABLE counters (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)');
      await ts.store.run('INSERT INTO counters (id, n) VALUES (1, 0)');
      const child = startWorker(ts.url, 'k', 1_000_000, 2);
      // Kill once some commits have landed, at a point the test does not choose.
      let observed = 0;
      while (observed < 50) {
        const c = await ts.store.get<{ n: number }>('SELECT n FROM counters WHERE id = 1');
        observed = c?.n ?? 0;
        if (observed < 50) await new Promise((r) => setTimeout(r, 10));
      }
      await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 50)));
      const exited = new Promise((r) => child.on('exit', r));
      child.kill('SIGKILL');
      await exited;
      // One statement, one snapshot: on PostgreSQL a COMMIT the killed client had already sent may
      // still land after the kill, so two separate reads could straddle it.
      const both = await ts.store.get<{ n: number; c: number }>(
        'SELECT (SELECT n FROM counters WHERE id = 1) AS n, (SELECT COUNT(*) FROM appends) AS c',
      );
      const n = Number(both?.n ?? 0);
      assert.ok(n >= observed, `commits seen before the kill (${observed}) survive`);
      assert.ok(n < 1_000_000, 'the writer was killed mid-stream');
      assert.equal(Number(both?.c), n, 'every surviving append has its counter increment and vice versa');
    } finally {
      await ts.dispose();
    }
  });
}
