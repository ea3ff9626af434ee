/**
 * Journal row keys: `jid = run_pk * 2^24 + seq`. A run's rows are one contiguous key range, so the
 * primary key is the only index (on SQLite the rowid itself). Limits: 16 777 215 rows per run and
 * 2^29 runs, both far beyond what a store holds before it is archived; `jidOf` checks them.
 */
import { NoemaError } from '../../core/errors.ts';

export const SEQ_SPAN = 16_777_216;
export const MAX_RUN_PK = 2 ** 29;

export function jidOf(runPk: number, seq: number): number {
  if (seq < 0 || seq >= SEQ_SPAN || runPk >= MAX_RUN_PK) throw journalFull(`run ${runPk}, seq ${seq}`);
  return runPk * SEQ_SPAN + seq;
}

/** The error of a journal key out of range; `where` names the run (and row). */
export function journalFull(where: string): NoemaError {
  return new NoemaError('JOURNAL_FULL', `journal key out of range (${where})`, {
    hint: 'a run may hold at most 16 777 215 journal rows',
  });
}

export function seqOf(jid: number): number {
  return jid % SEQ_SPAN;
}

/** The inclusive key range of a run's rows after `afterSeq`. */
export function runRange(runPk: number, afterSeq = 0): [number, number] {
  return [runPk * SEQ_SPAN + afterSeq + 1, runPk * SEQ_SPAN + SEQ_SPAN - 1];
}
