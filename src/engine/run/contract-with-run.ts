/**
 * One read for resume: a contract with the run it belongs to and the run's graph body (a cold process
 * pays per statement, and would otherwise read the graph next).
 */
import { NoemaError } from '../../core/errors.ts';
import type { Queryable } from '../../store/store.ts';
import type { ContractStatus, ContractView, Json } from '../engine.ts';
import type { RunRow } from './runs.ts';

export async function getContractWithRun(
  q: Queryable,
  contract_id: string,
): Promise<ContractView & { run_pk: number; run_id: string; run: RunRow; graph_body: string }> {
  const r = await q.get<Record<string, unknown>>(
    `SELECT c.contract_id, c.node_id, c.action_type, c.status AS c_status, c.payload, c.result, c.error_message, c.error AS c_error,
            c.observation, c.transitions, r.run_pk, r.run_id, r.graph_hash, r.status, r.lease_owner, r.lease_expires_at,
            r.error, r.created_at, r.updated_at, g.body AS graph_body
     FROM engine_contracts c JOIN engine_runs r ON r.run_pk = c.run_pk
     JOIN engine_graphs g ON g.graph_hash = r.graph_hash WHERE c.contract_id = ?`,
    [contract_id],
  );
  if (!r)
    throw new NoemaError('UNKNOWN_CONTRACT', `no contract ${contract_id}`, {
      status: 404,
      details: { contract_id },
    });
  const { graph_body, ...runColumns } = r;
  const run = {
    ...runColumns,
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
    error: r.c_error == null ? null : JSON.parse(r.c_error as string),
    transitions: JSON.parse(r.transitions as string),
    node_id: r.node_id as string,
    observation: (r.observation as string | null) ?? null,
    run_pk: run.run_pk,
    run_id: run.run_id,
    run,
    graph_body: graph_body as string,
  };
}
