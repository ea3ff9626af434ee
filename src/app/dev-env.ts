/**
 * `<data dir>/dev.env`: the settings of the services `noema dev up` started (`KEY=VALUE` lines),
 * read by every command's configuration when present; the real environment wins.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export function devEnvPath(dataDir: string): string {
  return join(dataDir, 'dev.env');
}

/** Settings that decide where dev.env is; the file cannot set them. */
const LOCATING = new Set(['NOEMA_DB', 'NOEMA_DATA_DIR']);

/** `KEY=VALUE` lines, as `noema dev up` writes them. */
export function formatDevEnv(settings: Record<string, string>): string {
  return Object.entries(settings)
    .map(([k, v]) => `${k}=${v}\n`)
    .join('');
}

/** Fills what `env` leaves unset from `<dataDir>/dev.env`, if there is one; a variable already set is never replaced. */
export function readDevEnv(dataDir: string, env: NodeJS.ProcessEnv): void {
  let text: string;
  try {
    text = readFileSync(devEnvPath(dataDir), 'utf8');
  } catch {
    return;
  }
  for (const line of text.split('\n')) {
    const m = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (m && !LOCATING.has(m[1]!) && env[m[1]!] === undefined) env[m[1]!] = m[2]!;
  }
}
