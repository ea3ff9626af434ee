/**
 * Answering a WAITING contract from any process. Everything is checked before anything is written
 * (contract of this run, status WAITING, response valid against `payload.response_schema`); the write
 * is one transaction that compare-and-sets the contract, so two concurrent resumes cannot both win.
 */
import { NoemaError } from '../../core/errors.ts';
import type { JsonSchema } from '../../core/schema-registry.ts';
import { updateContract, viewOf } from '../contracts/contract-store.ts';
import { transition } from '../contracts/transitions.ts';
import type { ContractView, Json } from '../engine.ts';
import { RunEvents } from '../events/run-events.ts';
import type { TransitionEntry } from '../journal/entries.ts';
import { appendNext } from '../journal/journal.ts';
import { loadSchemas } from '../schemas.ts';
import { recordAttempt } from './attempts.ts';
import { getContractWithRun as getContractOrThrow } from './contract-with-run.ts';
import type { EngineDeps } from './deps.ts';
import { getRunOrThrow, nextEventEpoch, type RunRow } from './runs.ts';

/**
 * Returns the run row, claimed by this process (status `running`, our lease), when no other contract
 * waits — claiming in the same transaction saves the continuing run a round trip — else `undefined`;
 * and the run's graph body, read with the contract.
 */
export async function answerContract(
  deps: EngineDeps,
  run_id: string,
  contract_id: string,
  response: Json,
): Promise<{ claimed: RunRow | undefined; events: RunEvents; graph_hash: string; graph_body: string }> {
  const { store, bus } = deps;
  const c = await getContractOrThrow(store, contract_id);
  const run = c.run_id === run_id ? c.run : await getRunOrThrow(store, run_id);
  if (c.run_pk !== run.run_pk) {
    throw new NoemaError('UNKNOWN_CONTRACT', `run ${run_id} has no contract ${contract_id}`, {
      status: 404,
      details: { run_id, contract_id },
    });
  }
  if (c.status !== 'WAITING') throw notWaiting(c);
  const schema = (c.payload as Record<string, Json>).response_schema as JsonSchema;
  (await loadSchemas()).assertValid(schema, response, { what: `response to contract ${contract_id}` });
  const now = deps.now();
  const running = transition(c, { to: 'RUNNING', actor: 'resume', at: now });
  const done = viewOf(
    transition(running, { to: 'COMPLETED', actor: 'resume', at: now, result: response }),
    c.node_id,
  );
  const entry: TransitionEntry = { k: 't', c: contract_id, s: 'COMPLETED', by: 'resume' };
  const events = new RunEvents(bus, run_id);
  const claimed = await events.transaction(async (tx, emit) => {
    // A new claim epoch numbers this resume's events (and the run's, if it continues here) above any
    // earlier process's; the row lock it takes serializes journal appends with any other resume.
    const epoch = await nextEventEpoch(tx, run.run_pk);
    events.claimed(epoch);
    if (!(await updateContract(tx, done, 'WAITING', now))) throw notWaiting({ ...c, status: 'COMPLETED' });
    await appendNext(tx, run.run_pk, JSON.stringify(entry));
    for (const t of done.transitions.slice(-2)) {
      emit({
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
    const r = await tx.run(
      `UPDATE engine_runs SET status = 'running', lease_owner = ?, lease_expires_at = ?, updated_at = ?
       WHERE run_pk = ? AND status = 'waiting'
         AND NOT EXISTS (SELECT 1 FROM engine_contracts WHERE run_pk = ? AND status = 'WAITING')`,
      [deps.owner, now + deps.leaseMs, now, run.run_pk, run.run_pk],
    );
    if (r.changes !== 1) return undefined;
    await recordAttempt(tx, run.run_pk, epoch, deps.owner, now);
    return { ...run, status: 'running' as const, lease_owner: deps.owner, event_epoch: epoch };
  });
  return {
    claimed,
    events,
    graph_hash: run.graph_hash,
    graph_body: c.graph_body,
  };
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
