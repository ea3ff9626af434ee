/**
 * The run's lease as a condition of a write: the statement changes no row unless `owner` still holds
 * the run's lease. The dialect's `forShare` makes a concurrent claim of the run wait for the writing
 * transaction. Journal rows and contract writes joined to an executor's transaction are fenced so.
 */
import type { Dialect } from '../../store/store.ts';

export interface LeaseFence {
  dialect: Dialect;
  runPk: number;
  owner: string;
}

/** The condition's text; its parameters follow in this order: run_pk, owner. */
export function leaseHeldSql(forShare: string): string {
  return `EXISTS (SELECT 1 FROM engine_runs WHERE run_pk = ? AND lease_owner = ?${forShare})`;
}

/** The check as a query of its own: one row while `owner` holds the lease (parameters as above). */
export function leaseHeldQuery(forShare: string): string {
  return `SELECT 1 AS held FROM engine_runs WHERE run_pk = ? AND lease_owner = ?${forShare}`;
}
