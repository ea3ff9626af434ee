/**
 * Journal entries as the engine uses them (names, not indexes): one per super-step plus entries for
 * out-of-step events (generation attempts, contract transitions, the run's input). `codec.ts` owns
 * how they are written to a row.
 */
import type { ContractStatus, Json } from '../engine.ts';
import type { NodeDelta } from '../run/state.ts';

/** A super-step: the deltas of the nodes it ran, and what it created. */
export interface StepEntry {
  k?: undefined;
  deltas: NodeDelta[];
  /** Contracts created by the step (their rows carry payloads). */
  c?: string[];
  /** The WAITING contracts that suspended the run after this step. */
  z?: string[];
  /** Artifacts persisted with the step. */
  f?: string[];
}

/** A failed generation attempt of node `n` (seed 004 D13). */
export interface AttemptEntry {
  k: 'g';
  n: string;
  t: number;
  e: string;
  x: string;
}

/** A contract transition outside a step (perform, resume, recovery, cancel). */
export interface TransitionEntry {
  k: 't';
  c: string;
  s: ContractStatus;
  by: string;
}

/** The run's initial channel writes (before the first step; the frontier stays at the entry). */
export interface InputEntry {
  k: 'i';
  w: Record<string, Json>;
}

export type JournalEntry = StepEntry | AttemptEntry | TransitionEntry | InputEntry;

export type { Json };
