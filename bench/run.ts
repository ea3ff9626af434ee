/**
 * `npm run bench [-- <name>…] [-- --quick]`: runs every benchmark in bench/<name>.bench.ts
 * (or the named ones), prints a table each and writes bench/results/<name>.json. Temporary files
 * (stores, scripts, compile caches, of this process and the processes it starts) go to a folder of
 * the run's own (TMPDIR), removed at its end.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Bench, type BenchRow, createContext, printTable, writeResult } from './lib/harness.ts';

const dir = import.meta.dirname;
const args = process.argv.slice(2);
const quick = args.includes('--quick');
const wanted = args.filter((a) => !a.startsWith('--'));
const available = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts'))
  .map((f) => f.slice(0, -'.bench.ts'.length))
  .sort();
const unknown = wanted.filter((w) => !available.includes(w));
if (unknown.length > 0) {
  console.error(`bench: unknown benchmark ${unknown.join(', ')} (available: ${available.join(', ')})`);
  process.exit(2);
}
const scratch = mkdtempSync(join(tmpdir(), 'noema-bench-run-'));
process.env.TMPDIR = scratch;
let failed = false;
for (const name of wanted.length > 0 ? wanted : available) {
  const mod = (await import(join(dir, `${name}.bench.ts`))) as { default: Bench };
  const rows: BenchRow[] = [];
  const started_at = new Date().toISOString();
  console.log(`\n▶ ${name}: ${mod.default.description}`);
  try {
    await mod.default.run(createContext(quick, rows));
  } catch (err) {
    failed = true;
    console.error(`bench ${name} failed: ${(err as Error).stack}`);
  }
  const result = { name, started_at, node: process.version, rows };
  printTable(result);
  console.log(`results: ${writeResult(join(dir, 'results'), result)}`);
}
rmSync(scratch, { recursive: true, force: true });
process.exit(failed ? 1 : 0);
