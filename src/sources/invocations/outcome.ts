/** Pieces of an invocation's outcome: the caller's output kind, the redacted failure, what observers are told. */
import type { InvocationFinished, Telemetry } from '../../core/telemetry.ts';
import { SourceFailure } from '../failure.ts';
import type { Redactor } from '../redact.ts';
import type { SourceCall, TraceValues } from '../source.ts';
import { isOutputKindName } from './annotate.ts';

/** The caller's name for the result's `model_output_kind`: null when it names none, or throws. */
export function outputKindOf(
  name: NonNullable<SourceCall['outputKind']>,
  failure: SourceFailure | null,
  output: unknown,
): string | null {
  try {
    const kind = failure
      ? name({ ok: false, failure_class: failure.failureClass })
      : name({ ok: true, output });
    return kind !== null && isOutputKindName(kind) ? kind : null;
  } catch {
    return null;
  }
}

export function redactedFailure(f: SourceFailure, redactor: Redactor): SourceFailure {
  const message = redactor.text(f.message);
  const hint = f.hint === undefined ? undefined : redactor.text(f.hint);
  const details = redactor.json(f.details);
  if (message === f.message && hint === f.hint && JSON.stringify(details) === JSON.stringify(f.details)) {
    return f;
  }
  return new SourceFailure(f.failureClass, message, {
    response: f.response,
    retryable: f.retryable,
    details,
    ...(hint !== undefined ? { hint } : {}),
  });
}

/** Tells the observer of a finished invocation; its failure never reaches the caller. */
export function observeInvocation(t: Telemetry, inv: InvocationFinished): void {
  try {
    t.invocationFinished?.(inv);
  } catch {
    // The observer logs its own incidents.
  }
}

/** The trace columns of `sets` by name, in one object (a later set's value of a column wins). */
export function columnsOf(...sets: ReadonlyArray<TraceValues | undefined>): Record<string, unknown> {
  // One object for every set, not one per set spread into another (a call's has a few dozen columns).
  const out: Record<string, unknown> = {};
  for (let s = 0; s < sets.length; s++) {
    const values = sets[s];
    if (!values) continue;
    for (let i = 0; i < values.columns.names.length; i++) out[values.columns.names[i]!] = values.values[i];
  }
  return out;
}
