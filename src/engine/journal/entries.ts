/**
 * Journal row bodies: compact JSON, one row per super-step plus rows for out-of-step events
 * (generation attempts, contract transitions, run end). Keys are one letter because every byte
 * of a row is paid for on every step.
 */
import type { ContractStatus, Json } from '../engine.ts';
import type { NodeDelta } from '../run/state.ts';

/** A super-step: one node inline (`n`, `w`, …) or several in `m`. */
export interface StepEntry extends Partial<NodeDelta> {
  k?: undefined;
  m?: NodeDelta[];
  /** Contracts created by the step (their rows carry payloads). */
  c?: string[];
  /** The WAITING contract that suspended the run after this step. */
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

export function stepDeltas(entry: StepEntry): NodeDelta[] {
  if (entry.m) return entry.m;
  const d: NodeDelta = { n: entry.n as string };
  if (entry.w !== undefined) d.w = entry.w;
  if (entry.o !== undefined) d.o = entry.o;
  if (entry.a !== undefined) d.a = entry.a;
  if (entry.r !== undefined) d.r = entry.r;
  return [d];
}

/** A step entry for `deltas`: inline when one node ran, which is the common case. */
export function stepEntry(deltas: NodeDelta[]): StepEntry {
  return deltas.length === 1 ? { ...(deltas[0] as NodeDelta) } : { m: deltas };
}

export type { Json };
