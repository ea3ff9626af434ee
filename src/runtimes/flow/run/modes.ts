/**
 * Failure semantics of memory and plan nodes (seed 003): the primary mode runs `1 + retry_count`
 * times; then, when `fallback_enabled`, exactly one attempt in the opposite mode; a failed fallback
 * is a hard failure (no second hop). Errors marked hard (e.g. an ambiguous plan match) stop at once.
 */
import { type ErrorCode, isNoemaError, NoemaError } from '../../../core/errors.ts';
import type { NodeMode } from '../types.ts';

export interface AttemptRecord {
  mode: NodeMode;
  attempt: number;
  ok: boolean;
  error?: { code: string; message: string };
}

export interface ModeResult<T> {
  value: T;
  mode: NodeMode;
  /** Set when the fallback produced the value. */
  fallback: null | { failed_mode: NodeMode; fallback_mode: NodeMode; fallback_reason: string };
  attempts: AttemptRecord[];
}

export const opposite = (m: NodeMode): NodeMode => (m === 'llm_guided' ? 'deterministic' : 'llm_guided');

/** Codes that fail the node at once: retrying the same input cannot help. */
const HARD = new Set(['PLAN_AMBIGUOUS_MATCH', 'MEMORY_MCP_BINDING_INVALID']);

function describe(err: unknown): { code: string; message: string } {
  return isNoemaError(err)
    ? { code: err.code, message: err.message }
    : { code: 'NODE_FAILED', message: err instanceof Error ? err.message : String(err) };
}

export async function runWithFallback<T>(
  opts: { mode: NodeMode; retry_count: number; fallback_enabled: boolean },
  attempt: (mode: NodeMode, key: string) => Promise<T>,
): Promise<ModeResult<T>> {
  const attempts: AttemptRecord[] = [];
  let last: { code: string; message: string } | null = null;
  for (let i = 1; i <= 1 + opts.retry_count; i++) {
    try {
      const value = await attempt(opts.mode, `${opts.mode}-${i}`);
      attempts.push({ mode: opts.mode, attempt: i, ok: true });
      return { value, mode: opts.mode, fallback: null, attempts };
    } catch (err) {
      if (isNoemaError(err) && (err.retryable || HARD.has(err.code))) throw err;
      last = describe(err);
      attempts.push({ mode: opts.mode, attempt: i, ok: false, error: last });
    }
  }
  const reason = `${opts.mode} failed after ${1 + opts.retry_count} attempt(s): ${last?.code}: ${last?.message}`;
  if (!opts.fallback_enabled)
    throw new NoemaError((last?.code as ErrorCode | undefined) ?? 'NODE_FAILED', reason, {
      details: { attempts: attempts as never },
    });
  const fb = opposite(opts.mode);
  try {
    const value = await attempt(fb, `fallback-${fb}`);
    attempts.push({ mode: fb, attempt: 1, ok: true });
    return {
      value,
      mode: fb,
      fallback: { failed_mode: opts.mode, fallback_mode: fb, fallback_reason: reason },
      attempts,
    };
  } catch (err) {
    if (isNoemaError(err) && err.retryable) throw err;
    const e = describe(err);
    attempts.push({ mode: fb, attempt: 1, ok: false, error: e });
    throw new NoemaError(
      'FALLBACK_FAILED',
      `fallback ${fb} failed after ${reason}; then ${e.code}: ${e.message}`,
      {
        details: { failed_mode: opts.mode, fallback_mode: fb, attempts: attempts as never },
      },
    );
  }
}
