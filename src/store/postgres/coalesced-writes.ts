/**
 * One socket write for the statements a connection is handed in one turn of the event loop. The
 * `pg` client in pipeline mode writes each query the moment it is issued (its Parse, Bind, Describe,
 * Execute and Sync in one write): a transaction that issues its BEGIN and three statements together
 * makes four system calls, and on a loopback socket each runs the server's receive path too. Corked
 * from its first query until the event loop's check phase, the connection sends them in one.
 * Nothing waits longer for an answer: no answer can be read before that phase's turn anyway.
 */
import type { Socket } from 'node:net';
import type pg from 'pg';

export function coalesceWrites(client: pg.PoolClient | pg.Client): void {
  const stream = (client as unknown as { connection?: { stream?: Socket } }).connection?.stream;
  if (!stream || typeof stream.cork !== 'function') return;
  const issue = client.query.bind(client) as (...args: unknown[]) => unknown;
  let corked = false;
  const uncork = () => {
    corked = false;
    stream.uncork();
  };
  (client as { query: unknown }).query = (...args: unknown[]) => {
    if (!corked) {
      corked = true;
      stream.cork();
      setImmediate(uncork);
    }
    return issue(...args);
  };
}
