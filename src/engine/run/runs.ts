/**
 * The `engine_runs` rows: creation, leases (claim, heartbeat, release) and status. Claiming is a
 * conditional UPDATE in a transaction; with `supportsSkipLocked`, `claimNext` skips rows another
 * process is claiming instead of waiting on them.
 */

import { NoemaError } from '../../core/errors.ts';
import type { Queryable, SqlValue, Store, Transaction, TransactionOptions } from '../../store/store.ts';
import type { RunError, RunStatus } from '../engine.ts';
import { recordAttempt, recordClaimedAttempt } from './attempts.ts';

export interface RunRow {
  run_pk: number;
  run_id: string;
  graph_hash: string;
  status: RunStatus;
  lease_owner: string | null;
  lease_expires_at: number;
  /** Claims so far (see EngineEvent.seq). */
  event_epoch: number;
  error: string | null;
  created_at: number;
  updated_at: number;
  [k: string]: unknown;
}

/**
 * Queued (unless its creator reserved it and the reservation holds, see issueRunInsert) or running under
 * an expired lease (param: now). A queued run nobody reserved has `lease_expires_at` 0.
 */
const CLAIMABLE = `(status IN ('queued', 'running') AND lease_expires_at < ?)`;
/** CLAIMABLE for `claimNextRun`, whose queued runs must also be old enough (params: now, queuedBefore). */
const CLAIMABLE_NEXT = `(status IN ('queued', 'running') AND lease_expires_at < ? AND (status = 'running' OR created_at <= ?))`;

export async function findRun(q: Queryable, run_id: string): Promise<RunRow | undefined> {
  const r = await q.get<RunRow>('SELECT * FROM engine_runs WHERE run_id = ?', [run_id]);
  return r ? normalize(r) : undefined;
}

export async function getRunOrThrow(q: Queryable, run_id: string): Promise<RunRow> {
  const r = await findRun(q, run_id);
  if (!r) throw new NoemaError('UNKNOWN_RUN', `no run ${run_id}`, { status: 404, details: { run_id } });
  return r;
}

function normalize(r: RunRow): RunRow {
  return {
    ...r,
    run_pk: Number(r.run_pk),
    lease_expires_at: Number(r.lease_expires_at),
    event_epoch: Number(r.event_epoch),
  };
}

/**
 * Issues the insert of a queued run in `tx` without waiting for its answer. `reserved`: its creator
 * executes it next, so no other process claims it while the reservation lasts (as long as a lease: a
 * creator that died before executing it leaves it to others). `claimed`: the run is inserted already
 * claimed by `reserved.owner` — `running`, claim epoch 1, as `claimRun` would leave it (its attempt is
 * the caller's to record, `claimedAttemptStatement`). `inserted` is told the new run's key as the
 * insert answers, before the transaction settles. A run with this id there already fails the
 * transaction with `exists()`: the insert writes nothing then, which the database itself checks where
 * the COMMIT does not wait for the answer (no read of its own before it).
 */
export function issueRunInsert(
  tx: Transaction,
  run: { run_id: string; graph_hash: string; now: number },
  reserved: { owner: string; until: number } | null,
  claimed: boolean,
  inserted: (run_pk: number) => void,
  exists: () => Error,
): void {
  tx.writeReturning<{ run_pk: number }>(
    `INSERT INTO engine_runs (run_id, graph_hash, status, lease_owner, lease_expires_at, created_at, updated_at, event_epoch)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (run_id) DO NOTHING RETURNING run_pk`,
    [
      run.run_id,
      run.graph_hash,
      claimed ? 'running' : 'queued',
      reserved?.owner ?? null,
      reserved?.until ?? 0,
      run.now,
      run.now,
      claimed ? 1 : 0,
    ],
    (rows) => inserted(Number(rows[0]!.run_pk)),
    exists,
  );
}

/** Takes the lease of one run if it is queued (not reserved by another), abandoned (lease expired) or already ours. */
export async function claimRun(
  store: Store,
  run_id: string,
  owner: string,
  now: number,
  leaseMs: number,
  options?: Pick<TransactionOptions, 'durability'>,
): Promise<RunRow | undefined> {
  return store.transaction(async (tx) => {
    // The claimed row comes back with the claim (RETURNING): no read after it. Its attempt is
    // recorded by a statement issued with it (one round trip where the store pipelines).
    const claimed = tx.get<RunRow>(
      `UPDATE engine_runs SET status = 'running', lease_owner = ?, lease_expires_at = ?, updated_at = ?,
         event_epoch = event_epoch + 1
       WHERE run_id = ? AND (${CLAIMABLE} OR (status IN ('queued', 'running') AND lease_owner = ?))
       RETURNING *`,
      [owner, now + leaseMs, now, run_id, now, owner],
    );
    const attempt = recordClaimedAttempt(tx, run_id, owner, now);
    attempt.catch(() => {});
    const r = await claimed;
    await attempt;
    return r ? normalize(r) : undefined;
  }, options);
}

/**
 * Claims the oldest claimable run whose graph uses only node types in `types` (the claiming process's
 * registered types, `terminal` included): a process never claims a run it could not execute, e.g.
 * another runtime's. Several processes never get the same run. A queued run is taken only if it was
 * created at or before `queuedBefore` (`now` takes every queued run).
 */
export async function claimNextRun(
  store: Store,
  owner: string,
  now: number,
  leaseMs: number,
  types: readonly string[],
  queuedBefore: number = now,
): Promise<RunRow | undefined> {
  const skip = store.dialect.forUpdateSkipLocked;
  const list = types.map(() => '?').join(', ');
  return store.transaction(async (tx) => {
    const candidate = await tx.get<{ run_pk: number }>(
      `SELECT run_pk FROM engine_runs r WHERE ${CLAIMABLE_NEXT}
         AND NOT EXISTS (SELECT 1 FROM engine_graph_types t
                         WHERE t.graph_hash = r.graph_hash AND t.node_type NOT IN (${list}))
       ORDER BY run_pk LIMIT 1${skip}`,
      [now, queuedBefore, ...types],
    );
    if (!candidate) return undefined;
    const r = await tx.run(
      `UPDATE engine_runs SET status = 'running', lease_owner = ?, lease_expires_at = ?, updated_at = ?,
         event_epoch = event_epoch + 1
       WHERE run_pk = ? AND ${CLAIMABLE_NEXT}`,
      [owner, now + leaseMs, now, candidate.run_pk, now, queuedBefore],
    );
    if (r.changes !== 1) return undefined;
    const row = await tx.get<RunRow>('SELECT * FROM engine_runs WHERE run_pk = ?', [candidate.run_pk]);
    if (!row) return undefined;
    const claimed = normalize(row);
    await recordAttempt(tx, claimed.run_pk, claimed.event_epoch, owner, now);
    return claimed;
  });
}

/** Whether a run is claimable (as by `claimNextRun`) whose graph uses a node type outside `types`. */
export async function claimableOutside(
  q: Queryable,
  now: number,
  types: readonly string[],
  queuedBefore: number = now,
): Promise<boolean> {
  const list = types.map(() => '?').join(', ');
  const r = await q.get(
    `SELECT 1 AS x FROM engine_runs r WHERE ${CLAIMABLE_NEXT}
       AND EXISTS (SELECT 1 FROM engine_graph_types t
                   WHERE t.graph_hash = r.graph_hash AND t.node_type NOT IN (${list}))
     LIMIT 1`,
    [now, queuedBefore, ...types],
  );
  return r !== undefined;
}

/** Extends the lease; false when it was lost (another process claimed the run). */
export async function heartbeat(
  store: Store,
  runPk: number,
  owner: string,
  now: number,
  leaseMs: number,
): Promise<boolean> {
  const r = await store.run(
    `UPDATE engine_runs SET lease_expires_at = ? WHERE run_pk = ? AND lease_owner = ? AND status = 'running'`,
    [now + leaseMs, runPk, owner],
  );
  return r.changes === 1;
}

/** Drops `owner`'s lease but leaves the run `running`: any process may claim it at once. */
export async function abandonLease(q: Queryable, runPk: number, owner: string, now: number): Promise<void> {
  await q.run(
    `UPDATE engine_runs SET lease_owner = NULL, lease_expires_at = 0, updated_at = ?
     WHERE run_pk = ? AND lease_owner = ? AND status = 'running'`,
    [now, runPk, owner],
  );
}

/** Gives up every lease `owner` holds on a running run (a draining worker); returns how many. */
export async function abandonLeasesOf(store: Store, owner: string, now: number): Promise<number> {
  const r = await store.run(
    `UPDATE engine_runs SET lease_owner = NULL, lease_expires_at = 0, updated_at = ?
     WHERE lease_owner = ? AND status = 'running'`,
    [now, owner],
  );
  return r.changes;
}

/** Sets a new status and drops the lease, if `owner` still holds it. */
export async function releaseRun(
  tx: Transaction,
  runPk: number,
  owner: string,
  status: RunStatus,
  error: RunError | null,
  now: number,
): Promise<boolean> {
  const { sql, params } = releaseRunStatement(runPk, owner, status, error, now);
  const r = await tx.run(sql, params);
  return r.changes === 1;
}

/** `releaseRun`'s statement (it changed one row if `owner` held the lease), for a caller that runs it itself. */
export function releaseRunStatement(
  runPk: number,
  owner: string,
  status: RunStatus,
  error: RunError | null,
  now: number,
): { sql: string; params: SqlValue[] } {
  return {
    sql: `UPDATE engine_runs SET status = ?, error = ?, lease_owner = NULL, lease_expires_at = 0, updated_at = ?
     WHERE run_pk = ? AND lease_owner = ?`,
    params: [status, error ? JSON.stringify(error) : null, now, runPk, owner],
  };
}

/** Starts a new claim epoch for a process about to emit events of the run without claiming it (resume, cancel). */
export async function nextEventEpoch(tx: Transaction, runPk: number): Promise<number> {
  const r = await tx.get<{ event_epoch: number }>(
    'UPDATE engine_runs SET event_epoch = event_epoch + 1 WHERE run_pk = ? RETURNING event_epoch',
    [runPk],
  );
  return Number(r?.event_epoch);
}

/** The distinct node types a graph uses, sorted (`terminal` included). */
export function graphTypes(graph: { nodes?: ReadonlyArray<{ type: string }> }): string[] {
  return [...new Set((graph.nodes ?? []).map((n) => n.type))].sort();
}

/** Records a newly stored graph's node types (in the transaction that stores the graph). */
export async function insertGraphTypes(tx: Transaction, graph_hash: string, types: readonly string[]) {
  for (const t of types) {
    await tx.run(
      'INSERT INTO engine_graph_types (graph_hash, node_type) VALUES (?, ?) ON CONFLICT DO NOTHING',
      [graph_hash, t],
    );
  }
}

/**
 * Records the node types of graphs stored before claims were scoped (they have no type rows; every
 * graph has at least one node). Without it such a run could be claimed by any process.
 */
export async function backfillGraphTypes(store: Store): Promise<number> {
  const rows = await store.all<{ graph_hash: string; body: string }>(
    `SELECT graph_hash, body FROM engine_graphs g
     WHERE NOT EXISTS (SELECT 1 FROM engine_graph_types t WHERE t.graph_hash = g.graph_hash)`,
  );
  for (const row of rows) {
    let types: string[];
    try {
      types = graphTypes(JSON.parse(row.body) as { nodes?: Array<{ type: string }> });
    } catch {
      continue; // an unreadable graph fails its runs when loaded, as before
    }
    await store.transaction((tx) => insertGraphTypes(tx, row.graph_hash, types));
  }
  return rows.length;
}

export async function getGraphBody(q: Queryable, graph_hash: string): Promise<string> {
  const r = await q.get<{ body: string }>('SELECT body FROM engine_graphs WHERE graph_hash = ?', [
    graph_hash,
  ]);
  if (!r) throw new NoemaError('INTERNAL', `graph ${graph_hash} is missing`);
  return r.body;
}
