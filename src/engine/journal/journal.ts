/**
 * Journal persistence: appending rows fenced by the run's lease, periodic snapshots, and rebuilding a
 * run's state from the latest snapshot plus the rows after it (append channels read every step row).
 */
import type { Dialect, Queryable, SqlValue, Transaction } from '../../store/store.ts';
import type { Json } from '../engine.ts';
import type { CompiledGraph } from '../graph/compile.ts';
import { leaseHeldSql } from '../run/lease-fence.ts';
import { applyStep, applyWrites, type FrontierEntry, initialState, type RunState } from '../run/state.ts';
import { decodeEntry } from './codec.ts';
import type { AttemptEntry } from './entries.ts';
import { jidOf, MAX_RUN_PK, runRange, SEQ_SPAN, seqOf } from './key.ts';

/**
 * A journal row appended if (and only if) `owner` holds the run's lease and `seq` is free: the
 * statement changes no row when fenced out (another process claimed the run; issue it with
 * `Transaction.writeOne`). The dialect's `forShare` makes a concurrent claim wait
 * for this transaction instead of slipping in between the check and the insert.
 */
export function fencedAppendStatement(
  dialect: Dialect,
  runPk: number,
  seq: number,
  body: string,
  owner: string,
): { sql: string; params: SqlValue[] } {
  return { sql: fencedAppendSql(dialect), params: fencedAppendParams(runPk, seq, body, owner) };
}

/** The fenced append's text, the same string every time (it is the statement cache's key). */
export function fencedAppendSql(dialect: Dialect): string {
  // The dialect used last, ahead of the map: a run asks for the same text on every step.
  if (dialect.forShare === lastForShare) return lastFencedSql;
  lastFencedSql = fencedInsert(dialect.forShare);
  lastForShare = dialect.forShare;
  return lastFencedSql;
}

let lastForShare: string | null = null;
let lastFencedSql = '';

export function fencedAppendParams(runPk: number, seq: number, body: string, owner: string): SqlValue[] {
  return [jidOf(runPk, seq), body, runPk, owner];
}

// The statement text is the statement cache's key: built once per dialect, not on every step.
const fencedSql = new Map<string, string>();

function fencedInsert(forShare: string): string {
  let sql = fencedSql.get(forShare);
  if (sql === undefined) {
    sql = `INSERT INTO engine_journal (jid, body)
     SELECT ?, ? WHERE ${leaseHeldSql(forShare)}
     ON CONFLICT DO NOTHING`;
    fencedSql.set(forShare, sql);
  }
  return sql;
}

/**
 * The run's first journal row (its input, `seq` 1), appended without a lease in the transaction that
 * inserts the run: the key comes from the run's row, found by its id, so the statement can go before
 * the run's insert has answered. It must write one row (`Transaction.writeOne`): none means the run's
 * key is past the journal's range.
 */
export function inputAppendStatement(run_id: string, body: string): { sql: string; params: SqlValue[] } {
  return { sql: INPUT_APPEND, params: [body, run_id] };
}

const INPUT_APPEND = `INSERT INTO engine_journal (jid, body)
     SELECT run_pk * ${SEQ_SPAN} + 1, ? FROM engine_runs WHERE run_id = ? AND run_pk < ${MAX_RUN_PK}`;

/** Appends at the run's next sequence number, computed in the same statement (caller holds the run row). */
export async function appendNext(tx: Transaction, runPk: number, body: string): Promise<void> {
  const [lo, hi] = runRange(runPk);
  await tx.run(
    'INSERT INTO engine_journal (jid, body) SELECT COALESCE(MAX(jid), ?) + 1, ? FROM engine_journal WHERE jid BETWEEN ? AND ?',
    [lo - 1, body, lo, hi],
  );
}

export async function lastSeq(q: Queryable, runPk: number): Promise<number> {
  const row = await q.get<{ j: number | null }>(
    'SELECT MAX(jid) AS j FROM engine_journal WHERE jid BETWEEN ? AND ?',
    runRange(runPk),
  );
  return row?.j == null ? 0 : seqOf(Number(row.j));
}

/** Runs of such graphs are rebuilt from the whole journal, so they need no snapshots. */
export function hasAppendChannel(graph: CompiledGraph): boolean {
  return graph.hasAppendChannel;
}

interface SnapshotBody {
  step: number;
  frontier: FrontierEntry[];
  values: Record<string, Json>;
  outputs: RunState['outputs'];
}

/** Writes a snapshot of everything but append channels (those are the journal itself). */
export async function writeSnapshot(
  tx: Transaction,
  graph: CompiledGraph,
  runPk: number,
  state: RunState,
): Promise<void> {
  const { sql, params } = snapshotStatement(graph, runPk, state);
  await tx.run(sql, params);
}

/** `writeSnapshot`'s statement, for a caller that runs it itself. */
export function snapshotStatement(
  graph: CompiledGraph,
  runPk: number,
  state: RunState,
): { sql: string; params: SqlValue[] } {
  const values: Record<string, Json> = {};
  for (const [name, spec] of graph.channels)
    if (spec.reducer !== 'append') values[name] = state.channels[name] ?? null;
  const body: SnapshotBody = { step: state.step, frontier: state.frontier, values, outputs: state.outputs };
  return {
    sql: 'INSERT INTO engine_snapshots (run_pk, seq, body) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
    params: [runPk, state.seq, JSON.stringify(body)],
  };
}

export interface LoadedRun {
  state: RunState;
  /** Failed generation attempts since the last step, per node (corrective context for the next attempt). */
  attempts: Map<string, AttemptEntry[]>;
  /** No step has executed since the run was created (`createdState`): none of its records can exist. */
  fresh?: true;
}

/**
 * The state of a run no step has executed since it was created: `loadState` without the reads, from
 * the input row its creation wrote (`inputBody`; null when it wrote none).
 */
export function createdState(graph: CompiledGraph, inputBody: string | null): LoadedRun {
  const state = initialState(graph);
  if (inputBody !== null) {
    const entry = decodeEntry(graph, inputBody);
    if (entry.k === 'i') applyWrites(graph, state, entry.w);
    state.seq = 1;
  }
  return { state, attempts: new Map(), fresh: true };
}

/**
 * Rebuilds a run's state. With an append channel every row is read anyway (its items are the journal),
 * so the rows are replayed from the start and no snapshot is read; otherwise the latest snapshot, then
 * the rows after it.
 */
export async function loadState(q: Queryable, graph: CompiledGraph, runPk: number): Promise<LoadedRun> {
  const state = initialState(graph);
  const snap = hasAppendChannel(graph)
    ? undefined
    : await q.get<{ seq: number; body: string }>(
        'SELECT seq, body FROM engine_snapshots WHERE run_pk = ? ORDER BY seq DESC LIMIT 1',
        [runPk],
      );
  if (snap) {
    const body = JSON.parse(snap.body) as SnapshotBody;
    Object.assign(state.channels, body.values);
    state.step = body.step;
    state.frontier = body.frontier;
    state.outputs = body.outputs;
    state.seq = Number(snap.seq);
  }
  const rows = await q.all<{ jid: number; body: string }>(
    'SELECT jid, body FROM engine_journal WHERE jid BETWEEN ? AND ? ORDER BY jid',
    runRange(runPk, state.seq),
  );
  const attempts = new Map<string, AttemptEntry[]>();
  for (const row of rows) {
    state.seq = seqOf(Number(row.jid));
    const entry = decodeEntry(graph, row.body);
    if (entry.k === undefined) {
      applyStep(graph, state, entry.deltas);
      attempts.clear();
    } else if (entry.k === 'i') {
      applyWrites(graph, state, entry.w);
    } else if (entry.k === 'g') {
      attempts.set(entry.n, [...(attempts.get(entry.n) ?? []), entry]);
    }
  }
  return { state, attempts };
}
