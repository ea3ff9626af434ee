/** Logged-out sessions in the store (`http_session_revocations`): the durable side of `SessionKeeper`. */
import type { Store } from '../../../store/store.ts';
import type { RevocationStore } from './sessions.ts';

export function storeRevocations(store: Store): RevocationStore {
  return {
    async load(now) {
      const rows = await store.all<{ session_id: string; expires_at: number | string }>(
        'SELECT session_id, expires_at FROM http_session_revocations WHERE expires_at > ?',
        [now],
      );
      return rows.map((r) => ({ id: r.session_id, expires: Number(r.expires_at) }));
    },
    async add(id, expires, now) {
      await store.run(
        'INSERT INTO http_session_revocations (session_id, expires_at) VALUES (?, ?) ON CONFLICT (session_id) DO NOTHING',
        [id, expires],
      );
      // Expired cookies are refused by their signature's date: their revocations can go.
      await store.run('DELETE FROM http_session_revocations WHERE expires_at <= ?', [now]);
    },
    async has(id) {
      const row = await store.get<{ n: number }>(
        'SELECT 1 AS n FROM http_session_revocations WHERE session_id = ?',
        [id],
      );
      return row !== undefined;
    },
  };
}
