/**
 * `node bench/lib/heap-profile-summary.ts <a.heapprofile> [b.heapprofile] [units] [rows]`: what a
 * sampling heap profile (`bench/lib/cpu-profile.ts`) says was allocated, in bytes per unit (a run,
 * an interaction: `units` of them were timed), by function; with a second profile, each function's
 * bytes beside the other's and sorted by the difference (the first side's extra allocation first).
 */
import { readFileSync } from 'node:fs';

interface HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: HeapNode[];
}

function bytesByFunction(path: string): Map<string, number> {
  const { head } = JSON.parse(readFileSync(path, 'utf8')) as { head: HeapNode };
  const by = new Map<string, number>();
  const walk = (n: HeapNode) => {
    const { functionName, url, lineNumber } = n.callFrame;
    const where = url.replace(/^file:\/\//, '').replace(`${process.cwd()}/`, '');
    const key = `${functionName || '(anonymous)'} ${where}:${lineNumber + 1}`;
    by.set(key, (by.get(key) ?? 0) + n.selfSize);
    for (const c of n.children) walk(c);
  };
  walk(head);
  return by;
}

const [a, b, unitsArg, rowsArg] = process.argv.slice(2);
if (!a) throw new Error('usage: heap-profile-summary.ts <a.heapprofile> [b.heapprofile|-] [units] [rows]');
const units = Number(unitsArg ?? 1);
const rows = Number(rowsArg ?? 40);
const A = bytesByFunction(a);
const B = b && b !== '-' ? bytesByFunction(b) : new Map<string, number>();
const sum = (m: Map<string, number>) => [...m.values()].reduce((s, v) => s + v, 0) / units;
console.log(`bytes per unit: ${sum(A).toFixed(0)}${B.size > 0 ? ` against ${sum(B).toFixed(0)}` : ''}`);
const keys = [...new Set([...A.keys(), ...B.keys()])];
const per = (m: Map<string, number>, k: string) => (m.get(k) ?? 0) / units;
keys.sort((x, y) => per(A, y) - per(B, y) - (per(A, x) - per(B, x)));
for (const k of keys.slice(0, rows)) {
  const d = per(A, k) - per(B, k);
  console.log(
    `${d.toFixed(0).padStart(8)} ${per(A, k).toFixed(0).padStart(8)} ${per(B, k).toFixed(0).padStart(8)}  ${k}`,
  );
}
