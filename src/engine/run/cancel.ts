/**
 * Cancelling a run: its status, every unfinished contract and the caller's own writes for it move to
 * cancelled in one transaction.
 */
import { NoemaError } from '../../core/errors.ts';
import { contractsOfRun, updateContract, viewOf } from '../contracts/contract-store.ts';
import { isFinal, transition } from '../contracts/transitions.ts';
import type { CancelOptions } from '../engine.ts';
import { RunEvents } from '../events/run-events.ts';
import type { EngineDeps } from './deps.ts';
import { getRunOrThrow } from './runs.ts';

export async function cancelRun(
  deps: EngineDeps,
  run_id: string,
  options: CancelOptions = {},
): Promise<void> {
  const { store, bus } = deps;
  const run = await getRunOrThrow(store, run_id);
  const now = deps.now();
  const events = new RunEvents(bus, run_id);
  await events.transaction(async (tx, emit) => {
    // Dropping the lease fences out a process still executing the run: its next append writes nothing.
    // The new claim epoch numbers the cancel's events above that process's.
    const r = await tx.get<{ event_epoch: number }>(
      `UPDATE engine_runs SET status = 'cancelled', lease_owner = NULL, lease_expires_at = 0, updated_at = ?,
         event_epoch = event_epoch + 1
       WHERE run_pk = ? AND status IN ('queued', 'running', 'waiting') RETURNING event_epoch`,
      [now, run.run_pk],
    );
    if (!r) {
      throw new NoemaError(
        'INVALID_TRANSITION',
        `run ${run_id} is ${run.status}; only an unfinished run can be cancelled`,
        {
          details: { run_id, status: run.status },
          status: 409,
        },
      );
    }
    events.claimed(Number(r.event_epoch));
    for (const c of await contractsOfRun(tx, run.run_pk)) {
      if (isFinal(c.status)) continue;
      const next = viewOf(
        transition(c, { to: 'CANCELLED', actor: 'cancel', at: now, error_message: 'run cancelled' }),
        c.node_id,
      );
      if (!(await updateContract(tx, next, c.status, now))) continue;
      const t = next.transitions.at(-1)!;
      emit({
        type: 'contract.transitioned',
        run_id,
        contract_id: next.contract_id,
        action_type: next.action_type,
        from: t.from,
        to: t.to,
        actor: t.actor,
        at: t.at,
      });
    }
    await options.writes?.(tx);
    emit({ type: 'run.updated', run_id, status: 'cancelled', step: 0, at: now });
  });
}
