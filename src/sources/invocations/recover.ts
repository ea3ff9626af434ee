/**
 * Startup recovery: invocations left `running` by a dead process become `interrupted` (and
 * with them their LLM traces, which are a part of the row). A live owner's rows are never touched: the owner is dead
 * when its pid is gone on this host, or when its heartbeat is older than its lease.
 */
import { telemetry } from '../../core/telemetry.ts';
import type { Store } from '../../store/store.ts';
import { HOSTNAME, ownProcessId } from './process-lease.ts';

export interface RecoveryReport {
  interrupted: number;
  dead_processes: string[];
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

type Owner = {
  owner_process_id: string;
  hostname: string | null;
  pid: number | null;
  started_at: number | null;
  heartbeat_at: number | null;
  lease_ms: number | null;
};

// When this process started; an owner with our pid that started before us was a previous
// process (containers reuse pids across restarts).
const PROCESS_STARTED_AT = Date.now() - Math.round(process.uptime() * 1000);

function ownerIsDead(o: Owner, now: number): boolean {
  if (o.pid === null || o.heartbeat_at === null) return true;
  const pid = Number(o.pid);
  if (o.hostname === HOSTNAME) {
    if (pid === process.pid) return Number(o.started_at) < PROCESS_STARTED_AT;
    if (!pidAlive(pid)) return true;
  }
  // Another host, or a live pid that may have been reused: trust only the lease.
  return now - Number(o.heartbeat_at) > Number(o.lease_ms);
}

/**
 * A dead owner's LLM calls whose persisted chunks hold the whole reply (received before the process
 * died, not yet recorded) are finished with it rather than marked interrupted. Loaded only when such
 * a call exists, so recovery stays light.
 */
async function keepCompleteReplies(store: Store, owner: string, now: number): Promise<void> {
  const streamed = await store.all<{ source_invocation_id: string }>(
    `SELECT source_invocation_id FROM source_invocations
      WHERE owner_process_id = ? AND status = 'running' AND interface_name = 'llm_chat_completions'
        AND llm_chunk_count > 0`,
    [owner],
  );
  if (streamed.length === 0) return;
  const { keepCompleteReply } = await import('./keep-reply.ts');
  for (const r of streamed) await keepCompleteReply(store, r.source_invocation_id, now).catch(() => null);
}

/**
 * Marks `running` invocations of dead processes `interrupted` (after keeping the replies their
 * persisted chunks hold whole); safe to call at any time.
 */
export async function recoverInterruptedInvocations(store: Store, now = Date.now()): Promise<RecoveryReport> {
  const owners = await store.all<Owner>(
    `SELECT o.owner_process_id, p.hostname, p.pid, p.started_at, p.heartbeat_at, p.lease_ms
       FROM (SELECT DISTINCT owner_process_id FROM source_invocations WHERE status = 'running') o
       LEFT JOIN source_processes p ON p.process_id = o.owner_process_id`,
  );
  const self = ownProcessId(store);
  const dead = owners.filter((o) => o.owner_process_id !== self && ownerIsDead(o, now));
  let interrupted = 0;
  // With an observer installed, the calls marked are read first and reported once committed.
  const observed = telemetry();
  const observe = observed?.invocationFinished ? await import('./observe-recovered.ts') : null;
  for (const o of dead) {
    await keepCompleteReplies(store, o.owner_process_id, now);
    let marked: Awaited<ReturnType<NonNullable<typeof observe>['runningOf']>> = [];
    interrupted += await store.transaction(async (tx) => {
      if (observe) marked = await observe.runningOf(tx, o.owner_process_id);
      const message = `interrupted: the owning process (pid ${o.pid ?? '?'} on ${o.hostname ?? '?'}) stopped before the call finished`;
      const r = await tx.run(
        `UPDATE source_invocations SET status = 'interrupted', failure_class = 'interrupted', failure_message = ?,
                ended_at = ?, duration_ms = CASE WHEN ? >= started_at THEN ? - started_at ELSE 0 END
          WHERE owner_process_id = ? AND status = 'running'`,
        [message, now, now, now, o.owner_process_id],
      );
      await tx.run('DELETE FROM source_processes WHERE process_id = ?', [o.owner_process_id]);
      return r.changes;
    });
    if (observe && observed) observe.reportInterrupted(observed, marked, now);
  }
  return { interrupted, dead_processes: dead.map((o) => o.owner_process_id) };
}
