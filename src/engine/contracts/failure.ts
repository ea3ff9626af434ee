/** Builds a contract's typed failure (`ContractFailure`) from an error, keeping it data end to end. */
import { type ErrorCode, toNoemaError } from '../../core/errors.ts';
import type { ContractFailure } from '../engine.ts';

/** The failure of anything thrown: a NoemaError keeps its code, retryable and details; others are INTERNAL. */
export function failureOf(err: unknown): ContractFailure {
  const e = toNoemaError(err);
  return { code: e.code, message: e.message, retryable: e.retryable, details: e.details };
}

/** A failure the engine itself decides (interrupted, no executor): never retryable as is. */
export function engineFailure(code: ErrorCode, message: string): ContractFailure {
  return { code, message, retryable: false, details: {} };
}
