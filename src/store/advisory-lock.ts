/**
 * Per-key serialization inside a transaction: on backends with concurrent writers, a
 * transaction-scoped PostgreSQL advisory lock on a hash of `scope`; elsewhere (SQLite's
 * transactions are already serialized) nothing.
 */
import { createHash } from 'node:crypto';
import type { StoreCapabilities, Transaction } from './store.ts';

/** 48 bits of sha256(scope): stable across processes and exact as a JS number. */
export function advisoryLockKey(scope: string): number {
  return Number.parseInt(createHash('sha256').update(scope).digest('hex').slice(0, 12), 16);
}

export async function lockScope(
  tx: Transaction,
  capabilities: Pick<StoreCapabilities, 'concurrentWriters'>,
  scope: string,
): Promise<void> {
  if (capabilities.concurrentWriters)
    await tx.get('SELECT pg_advisory_xact_lock(?)', [advisoryLockKey(scope)]);
}
