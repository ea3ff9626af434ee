/** The server token: NOEMA_TOKEN, or one generated on first start and kept in the data directory. */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ResolvedToken {
  token: string;
  /** True when this call generated and stored it (print it once). */
  generated: boolean;
  path: string | null;
}

export function resolveToken(configured: string | undefined, dataDir: string): ResolvedToken {
  if (configured) return { token: configured, generated: false, path: null };
  const path = join(dataDir, 'token');
  try {
    const existing = readFileSync(path, 'utf8').trim();
    if (existing) return { token: existing, generated: false, path };
  } catch {
    // No token yet: generate below.
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const token = randomBytes(24).toString('base64url');
  writeFileSync(path, `${token}\n`, { mode: 0o600, flag: 'w' });
  return { token, generated: true, path };
}

/** Constant-time comparison of a presented token with the expected one. */
export function tokenMatches(presented: string, expected: string): boolean {
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
