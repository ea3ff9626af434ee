/** One read for resume: a contract with the run it belongs to (a cold process pays per statement). */
import { NoemaError } from '../../core/errors.ts';
import type { Queryable } from '../../store/store.ts';
import type { ContractStatus, ContractView, Json } from '../engine.ts';
import type { RunRow } from './runs.ts';

export async function getContractWithRun(
  q: Queryable,
  contract_id: string,
): Promise<ContractView & { run_pk: number; run_id: string; run: RunRow }> {
  const r = await q.get<Record<string, unknown>>(
    `SELECT c.contract_id, c.node_id, c.action_type, c.status AS c_status, c.payload, c.result, c.error_message,
            c.observation, c.transitions, r.run_pk, r.run_id, r.graph_hash, r.status, r.lease_owner, r.lease_expires_at,
            r.error, r.created_at, r.updated_at
     FROM engine_contracts c JOIN engine_runs r ON r.run_pk = c.run_pk WHERE c.contract_id = ?`,
    [contract_id],
  );
  if (!r)
    throw new NoemaError('UNKNOWN_CONTRACT', `no contract ${contract_id}`, {
      status: 404,
      details: { contract_id },
    });
  const run = {
    ...r,
    run_pk: Number(r.run_pk),
    lease_expires_at: Number(r.lease_expires_at),
  } as unknown as RunRow;
  return {
    contract_id: r.contract_id as string,
    action_type: r.action_type as string,
    status: r.c_status as ContractStatus,
    payload: JSON.parse(r.payload as string) as Json,
    result: r.result == null ? null : (JSON.parse(r.result as string) as Json),
    error_message: (r.error_message as string | null) ?? null,
    transitions: JSON.parse(r.transitions as string),
    node_id: r.node_id as string,
    observation: (r.observation as string | null) ?? null,
    run_pk: run.run_pk,
    run_id: run.run_id,
    run,
  };
}
