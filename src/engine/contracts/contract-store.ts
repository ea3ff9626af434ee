/** Contract rows: the indexed current state of each ExecutionContract (its history is in `transitions`). */
import { NoemaError } from '../../core/errors.ts';
import type { Queryable, SqlValue } from '../../store/store.ts';
import type { ContractStatus, ContractView, ExecutionContract, Json } from '../engine.ts';
import { type LeaseFence, leaseHeldSql } from '../run/lease-fence.ts';
import { canTransition } from './transitions.ts';
import { observationOf } from './views.ts';

interface ContractRow {
  contract_id: string;
  node_id: string;
  action_type: string;
  status: string;
  payload: string;
  result: string | null;
  error_message: string | null;
  error: string | null;
  observation: string | null;
  transitions: string;
  [k: string]: unknown;
}

const COLUMNS =
  'contract_id, node_id, action_type, status, payload, result, error_message, error, observation, transitions';

function toView(r: ContractRow): ContractView {
  return {
    contract_id: r.contract_id,
    action_type: r.action_type,
    status: r.status as ContractStatus,
    payload: JSON.parse(r.payload) as Json,
    result: r.result === null ? null : (JSON.parse(r.result) as Json),
    error_message: r.error_message,
    error: r.error === null ? null : JSON.parse(r.error),
    transitions: JSON.parse(r.transitions),
    node_id: r.node_id,
    observation: r.observation,
  };
}

export function viewOf(
  contract: ExecutionContract,
  node_id: string,
  observation?: string | null,
): ContractView {
  return {
    ...contract,
    node_id,
    observation: observation === undefined ? observationOf(contract) : observation,
  };
}

export async function insertContract(
  q: Queryable,
  runPk: number,
  c: ContractView,
  now: number,
): Promise<void> {
  const { sql, params } = insertContractStatement(runPk, c, now);
  await q.run(sql, params);
}

/** `insertContract`'s statement, for a caller that runs it itself. */
export function insertContractStatement(
  runPk: number,
  c: ContractView,
  now: number,
): { sql: string; params: SqlValue[] } {
  return {
    sql: `INSERT INTO engine_contracts (${COLUMNS}, run_pk, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    params: [
      c.contract_id,
      c.node_id,
      c.action_type,
      c.status,
      JSON.stringify(c.payload),
      c.result === null ? null : JSON.stringify(c.result),
      c.error_message,
      c.error === null ? null : JSON.stringify(c.error),
      c.observation,
      JSON.stringify(c.transitions),
      runPk,
      now,
      now,
    ],
  };
}

/**
 * Stores `next` only if the row is still in status `expected` (compare-and-set). Returns false when
 * another process moved it first; the caller then changes nothing. Throws INVALID_TRANSITION, writing
 * nothing, unless the moves `next` records after `expected` are each legal (the table in transitions.ts).
 */
export async function updateContract(
  q: Queryable,
  next: ContractView,
  expected: ContractStatus,
  now: number,
): Promise<boolean> {
  const { sql, params } = updateContractStatement(next, expected, now);
  const r = await q.run(sql, params);
  return r.changes === 1;
}

/**
 * `updateContract`'s statement (it changed one row unless another process moved the contract first),
 * for a caller that runs it itself; throws INVALID_TRANSITION as `updateContract` does.
 */
export function updateContractStatement(
  next: ContractView,
  expected: ContractStatus,
  now: number,
): { sql: string; params: SqlValue[] } {
  assertLegalMoves(next, expected);
  return {
    sql: `UPDATE engine_contracts SET status = ?, result = ?, error_message = ?, error = ?, observation = ?, transitions = ?, updated_at = ?
     WHERE contract_id = ? AND status = ?`,
    params: [
      next.status,
      next.result === null ? null : JSON.stringify(next.result),
      next.error_message,
      next.error === null ? null : JSON.stringify(next.error),
      next.observation,
      JSON.stringify(next.transitions),
      now,
      next.contract_id,
      expected,
    ],
  };
}

// The statements' text is the statement cache's key: built once per dialect.
const fencedInsertSql = new Map<string, string>();
const fencedUpdateSql = new Map<string, string>();

/** `insertContractStatement` fenced by the run's lease: it inserts no row when the lease moved. */
export function insertContractFencedStatement(
  fence: LeaseFence,
  c: ContractView,
  now: number,
): { sql: string; params: SqlValue[] } {
  const { params } = insertContractStatement(fence.runPk, c, now);
  let sql = fencedInsertSql.get(fence.dialect.forShare);
  if (sql === undefined) {
    sql = `INSERT INTO engine_contracts (${COLUMNS}, run_pk, created_at, updated_at)
     SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ? WHERE ${leaseHeldSql(fence.dialect.forShare)}`;
    fencedInsertSql.set(fence.dialect.forShare, sql);
  }
  return { sql, params: [...params, fence.runPk, fence.owner] };
}

/** `updateContractStatement` fenced by the run's lease: it changes no row when the lease moved. */
export function updateContractFencedStatement(
  fence: LeaseFence,
  next: ContractView,
  expected: ContractStatus,
  now: number,
): { sql: string; params: SqlValue[] } {
  const { sql: base, params } = updateContractStatement(next, expected, now);
  let sql = fencedUpdateSql.get(fence.dialect.forShare);
  if (sql === undefined) {
    sql = `${base} AND ${leaseHeldSql(fence.dialect.forShare)}`;
    fencedUpdateSql.set(fence.dialect.forShare, sql);
  }
  return { sql, params: [...params, fence.runPk, fence.owner] };
}

/** Walks back over `next.transitions` from its status to `expected`; every step must be a legal move. */
function assertLegalMoves(next: ContractView, expected: ContractStatus): void {
  let to = next.status;
  for (let i = next.transitions.length - 1; i >= 0; i--) {
    const t = next.transitions[i]!;
    if (t.to !== to || t.from === null || !canTransition(t.from, t.to)) break;
    if (t.from === expected) return;
    to = t.from;
  }
  throw new NoemaError(
    'INVALID_TRANSITION',
    `contract ${next.contract_id} cannot be stored as ${next.status}: no legal move from ${expected}`,
    {
      details: { contract_id: next.contract_id, from: expected, to: next.status },
      hint: 'move contracts with transition() before storing them',
      status: 409,
    },
  );
}

export async function contractsOfRun(q: Queryable, runPk: number): Promise<ContractView[]> {
  const rows = await q.all<ContractRow>(
    `SELECT ${COLUMNS} FROM engine_contracts WHERE run_pk = ? ORDER BY created_at, contract_id`,
    [runPk],
  );
  return rows.map(toView);
}

export async function findContract(
  q: Queryable,
  contract_id: string,
): Promise<(ContractView & { run_pk: number }) | undefined> {
  const r = await q.get<ContractRow & { run_pk: number }>(
    `SELECT ${COLUMNS}, run_pk FROM engine_contracts WHERE contract_id = ?`,
    [contract_id],
  );
  return r ? { ...toView(r), run_pk: Number(r.run_pk) } : undefined;
}

export async function getContractOrThrow(
  q: Queryable,
  contract_id: string,
): Promise<ContractView & { run_pk: number }> {
  const c = await findContract(q, contract_id);
  if (!c)
    throw new NoemaError('UNKNOWN_CONTRACT', `no contract ${contract_id}`, {
      status: 404,
      details: { contract_id },
    });
  return c;
}
