/**
 * Answering a WAITING contract from any process. Everything is checked before anything is written
 * (contract of this run, status WAITING, response valid against `payload.response_schema`); the write
 * is one transaction that compare-and-sets the contract, so two concurrent resumes cannot both win.
 */
import { NoemaError } from '../../core/errors.ts';
import type { JsonSchema } from '../../core/schema-registry.ts';
import { schemas } from '../../core/schema-registry.ts';
import { getContractOrThrow, updateContract, viewOf } from '../contracts/contract-store.ts';
import { transition } from '../contracts/transitions.ts';
import type { ContractView, Json } from '../engine.ts';
import type { TransitionEntry } from '../journal/entries.ts';
import { appendUnfenced, lastSeq } from '../journal/journal.ts';
import type { EngineDeps } from './deps.ts';
import { getRunOrThrow } from './runs.ts';

/** Returns true when the run has no other WAITING contract and was queued to continue. */
export async function answerContract(
  deps: EngineDeps,
  run_id: string,
  contract_id: string,
  response: Json,
): Promise<boolean> {
  const { store, bus } = deps;
  const run = await getRunOrThrow(store, run_id);
  const c = await getContractOrThrow(store, contract_id);
  if (c.run_pk !== run.run_pk) {
    throw new NoemaError('UNKNOWN_CONTRACT', `run ${run_id} has no contract ${contract_id}`, {
      status: 404,
      details: { run_id, contract_id },
    });
  }
  if (c.status !== 'WAITING') throw notWaiting(c);
  const schema = (c.payload as Record<string, Json>).response_schema as JsonSchema;
  schemas.assertValid(schema, response, { what: `response to contract ${contract_id}` });
  const now = deps.now();
  const running = transition(c, { to: 'RUNNING', actor: 'resume', at: now });
  const done = viewOf(
    transition(running, { to: 'COMPLETED', actor: 'resume', at: now, result: response }),
    c.node_id,
  );
  const entry: TransitionEntry = { k: 't', c: contract_id, s: 'COMPLETED', by: 'resume' };
  const queued = await store.transaction(async (tx) => {
    // Serializes journal appends of this run with any other resume (PostgreSQL runs them concurrently).
    if (store.capabilities.concurrentWriters)
      await tx.get('SELECT run_pk FROM engine_runs WHERE run_pk = ? FOR UPDATE', [run.run_pk]);
    if (!(await updateContract(tx, done, 'WAITING', now))) throw notWaiting({ ...c, status: 'COMPLETED' });
    await appendUnfenced(tx, run.run_pk, (await lastSeq(tx, run.run_pk)) + 1, JSON.stringify(entry));
    const others = await tx.get<{ n: number }>(
      `SELECT COUNT(*) AS n FROM engine_runs r JOIN engine_contracts c ON c.run_pk = r.run_pk WHERE r.run_pk = ? AND c.status = 'WAITING'`,
      [run.run_pk],
    );
    if (Number(others?.n ?? 0) > 0) return false;
    const r = await tx.run(
      `UPDATE engine_runs SET status = 'queued', updated_at = ? WHERE run_pk = ? AND status = 'waiting'`,
      [now, run.run_pk],
    );
    await bus.flush(tx);
    return r.changes === 1;
  });
  for (const t of done.transitions.slice(-2)) {
    bus.publish({
      type: 'contract.transitioned',
      run_id,
      contract_id,
      action_type: c.action_type,
      from: t.from,
      to: t.to,
      actor: t.actor,
      at: t.at,
    });
  }
  return queued;
}

function notWaiting(c: ContractView): NoemaError {
  return new NoemaError(
    'INVALID_TRANSITION',
    `contract ${c.contract_id} is ${c.status}, not WAITING: only a WAITING contract can be resumed`,
    {
      details: { contract_id: c.contract_id, from: c.status, to: 'RUNNING' },
      hint: 'read the run to see which contracts are WAITING',
      status: 409,
    },
  );
}
