/**
 * Temporary directories for tests and their fixtures: made under the OS temp directory and removed
 * when the process exits (children a test started have ended by then), so a run of the suite leaves
 * nothing behind.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const made: string[] = [];

function removeMade(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** A new directory named `prefix` + six random characters, removed when this process exits. */
export function testTempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  if (made.length === 0) process.once('exit', removeMade);
  made.push(dir);
  return dir;
}
