/**
 * Real PostgreSQL faults for tests, inside a throwaway database only: a `pg_notify` that the server
 * refuses (a shadowing function earlier on the database's search_path raises), terminating the
 * backend that holds a store's LISTEN connection, and refusing new connections.
 */
import pg from 'pg';
import { LISTENER_APPLICATION_NAME } from '../store/index.ts';
import { testPostgresUrl } from './stores.ts';

async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/**
 * Makes every later connection to the database at `url` fail `pg_notify(text, text)` with
 * `notify refused by the test`. Connections already open keep the real function.
 */
export async function refuseNotifications(url: string): Promise<void> {
  await withClient(url, async (c) => {
    await c.query('CREATE SCHEMA noema_fault');
    await c.query(`CREATE FUNCTION noema_fault.pg_notify(text, text) RETURNS void LANGUAGE plpgsql AS $$
      BEGIN RAISE EXCEPTION 'notify refused by the test'; END $$`);
    const db = (await c.query<{ d: string }>('SELECT current_database() AS d')).rows[0]!.d;
    await c.query(
      `ALTER DATABASE ${pg.escapeIdentifier(db)} SET search_path = noema_fault, pg_catalog, public`,
    );
  });
}

/** Terminates the backends holding Noema's LISTEN connections to the database at `url`; returns how many. */
export async function terminateListeners(url: string): Promise<number> {
  return withClient(testPostgresUrl(), async (c) => {
    const r = await c.query<{ ok: boolean }>(
      `SELECT pg_terminate_backend(pid) AS ok FROM pg_stat_activity
       WHERE datname = $1 AND application_name = $2`,
      [databaseOf(url), LISTENER_APPLICATION_NAME],
    );
    return r.rows.filter((row) => row.ok).length;
  });
}

/** Refuses (or again allows) new connections to the database at `url`; open ones are untouched. */
export async function setConnectionsAllowed(url: string, allowed: boolean): Promise<void> {
  await withClient(testPostgresUrl(), async (c) => {
    await c.query(`ALTER DATABASE ${pg.escapeIdentifier(databaseOf(url))} ALLOW_CONNECTIONS ${allowed}`);
  });
}

function databaseOf(url: string): string {
  return decodeURIComponent(new URL(url).pathname.slice(1));
}
