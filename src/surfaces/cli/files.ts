/**
 * Files named on the command line. A missing one is `file not found: <path>` (USAGE, exit 2) for
 * every command, before a store is opened; one that is not JSON names what it should have been.
 */
import { existsSync, readFileSync } from 'node:fs';
import { NoemaError } from '../../core/errors.ts';

export function fileNotFound(path: string, flag?: string): NoemaError {
  return new NoemaError('USAGE', `file not found: ${path}`, {
    details: { path, ...(flag ? { flag } : {}) },
  });
}

/** `path` itself, when something (a file or a directory) is there. */
export function requirePath(path: string, flag?: string): string {
  if (!existsSync(path)) throw fileNotFound(path, flag);
  return path;
}

/** Whether a command's target (`<id|file>`) names a file rather than an id. */
export function looksLikeFile(target: string): boolean {
  return existsSync(target) || /[/\\]/.test(target) || target.endsWith('.json');
}

export function readJsonFile(path: string, what: string, flag?: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as { code?: string }).code === 'ENOENT') throw fileNotFound(path, flag);
    throw new NoemaError('USAGE', `cannot read ${what} ${path}: ${(err as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new NoemaError('USAGE', `${what} ${path} is not JSON: ${(err as Error).message}`);
  }
}
