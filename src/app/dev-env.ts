/**
 * `<data dir>/dev.env`: the settings of the services `noema dev up` started (`KEY=VALUE` lines),
 * read by every command's configuration when present; the real environment wins. The file names
 * the process that serves them: left behind by one that was killed, it is ignored.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export function devEnvPath(dataDir: string): string {
  return join(dataDir, 'dev.env');
}

/** Settings that decide where dev.env is; the file cannot set them. */
const LOCATING = new Set(['NOEMA_DB', 'NOEMA_DATA_DIR']);

/** `KEY=VALUE` lines, as `noema dev up` (process `pid`) writes them. */
export function formatDevEnv(settings: Record<string, string>, pid: number): string {
  return `# written by noema dev up, pid ${pid}; removed when it stops\n${Object.entries(settings)
    .map(([k, v]) => `${k}=${v}\n`)
    .join('')}`;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as { code?: string }).code === 'EPERM';
  }
}

/** Fills what `env` leaves unset from `<dataDir>/dev.env`, if there is one; a variable already set is never replaced. */
export function readDevEnv(dataDir: string, env: NodeJS.ProcessEnv): void {
  let text: string;
  try {
    text = readFileSync(devEnvPath(dataDir), 'utf8');
  } catch {
    return;
  }
  const writer = /^# written by noema dev up, pid (\d+)/.exec(text)?.[1];
  if (writer !== undefined && !alive(Number(writer))) return;
  for (const line of text.split('\n')) {
    const m = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line.trim());
    if (m && !LOCATING.has(m[1]!) && env[m[1]!] === undefined) env[m[1]!] = m[2]!;
  }
}
