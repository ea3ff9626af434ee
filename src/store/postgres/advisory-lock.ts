/** The key of a PostgreSQL advisory lock for a scope name, as `Transaction.lockKey` takes it. */
import { createHash } from 'node:crypto';

/** 48 bits of sha256(scope): stable across processes and exact as a JS number. */
export function advisoryLockKey(scope: string): number {
  return Number.parseInt(createHash('sha256').update(scope).digest('hex').slice(0, 12), 16);
}
