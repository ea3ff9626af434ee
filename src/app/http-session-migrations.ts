/**
 * The HTTP surface's table (ids 800–899): logged-out browser sessions, kept until the signed cookie
 * would have expired anyway, so a logout survives restarts and holds in every process.
 */
import type { Migration } from '../store/index.ts';

export const httpSessionMigrations: readonly Migration[] = [
  {
    id: 800,
    name: 'http: revoked browser sessions',
    up: (d) => [
      `CREATE TABLE http_session_revocations (
         session_id TEXT PRIMARY KEY,
         expires_at ${d.bigint} NOT NULL
       )`,
      'CREATE INDEX http_session_revocations_expiry ON http_session_revocations (expires_at)',
    ],
  },
];
