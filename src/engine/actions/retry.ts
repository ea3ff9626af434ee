/**
 * The retry lane of calls that failed in a way the same request may not fail again: a failure whose
 * `retryable` is true (the sources' `same` class — `rate_limited`, `network`, `timeout`,
 * `http_status`). Each retry is a new call (for an action, a contract of its own keyed
 * `<key>:retry:<n>`, so every attempt is its own source invocation and a finished one replays), made
 * after waiting max(the provider's `details.retry_after_ms`, a doubling backoff), at most
 * `max_retries` times and within `budget_ms` of waiting in all. A wait that would pass the budget
 * (a `Retry-After` longer than it) is not made: the failure is returned at once. One place, used by
 * every runtime's model calls.
 */
import type { ContractView, Json, NodeContext } from '../engine.ts';
import { actRedoingInterrupted } from './redo.ts';

export interface SameRetryPolicy {
  /** Retries after the first call (so at most max_retries + 1 calls). */
  max_retries: number;
  /** The first backoff; each next one doubles. */
  backoff_ms: number;
  /** The most time spent waiting across all retries of one call. */
  budget_ms: number;
}

export const SAME_RETRY_POLICY: SameRetryPolicy = { max_retries: 2, backoff_ms: 250, budget_ms: 30_000 };

/** What the lane reads of a failure: whether it is retryable as is, and how long it asked to wait. */
export interface RetryableFailure {
  retryable?: boolean;
  details?: Record<string, unknown> | null;
}

/**
 * How long to wait before retry `retry` (1-based), given the time already waited, or null when the
 * failure is not retried (not retryable, retries spent, or the wait would pass the budget).
 */
export function sameRetryWait(
  failure: RetryableFailure | null | undefined,
  retry: number,
  waitedMs: number,
  policy: SameRetryPolicy = SAME_RETRY_POLICY,
): number | null {
  if (failure?.retryable !== true || retry > policy.max_retries) return null;
  const asked = failure?.details?.retry_after_ms;
  const after = typeof asked === 'number' && Number.isFinite(asked) && asked > 0 ? asked : 0;
  const wait = Math.max(after, policy.backoff_ms * 2 ** (retry - 1));
  return waitedMs + wait > policy.budget_ms ? null : wait;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0 || signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * `call(0)`, then `call(n)` again while its outcome is a retryable failure, waiting as
 * `sameRetryWait` says. `endedAt` (when given) says when a failed outcome ended, so a wait already
 * served (a replayed outcome) is not served again. An aborted signal stops the lane.
 */
export async function retryingSame<R>(
  call: (retry: number) => Promise<R>,
  failureOf: (outcome: R) => RetryableFailure | null,
  options: {
    policy?: SameRetryPolicy;
    signal?: AbortSignal;
    endedAt?: (outcome: R) => number | null;
    onRetry?: (retry: number, waitMs: number, failure: RetryableFailure) => void;
  } = {},
): Promise<R> {
  const policy = options.policy ?? SAME_RETRY_POLICY;
  let outcome = await call(0);
  let waited = 0;
  for (let retry = 1; ; retry++) {
    const failure = failureOf(outcome);
    const wait = sameRetryWait(failure, retry, waited, policy);
    if (wait === null || failure === null || options.signal?.aborted) return outcome;
    waited += wait;
    options.onRetry?.(retry, wait, failure);
    const ended = options.endedAt?.(outcome) ?? Date.now();
    await sleep(ended + wait - Date.now(), options.signal);
    if (options.signal?.aborted) return outcome;
    outcome = await call(retry);
  }
}

/** When a contract ended (its last transition), or null. */
function contractEnded(contract: ContractView): number | null {
  const last = contract.transitions.at(-1);
  return last ? last.at : null;
}

/**
 * `actRedoingInterrupted`, then, while the contract FAILED with a retryable failure, the same action
 * again as `<key>:retry:<n>` after the lane's wait (each retry redone when interrupted, too).
 */
export async function actRetrying(
  ctx: Pick<NodeContext<unknown>, 'act' | 'signal'>,
  action_type: string,
  payload: Json,
  options: {
    key: string;
    acrossAttempts?: boolean;
    policy?: SameRetryPolicy;
    onRetry?: (retry: number, waitMs: number) => void;
  },
): Promise<ContractView> {
  const across = options.acrossAttempts ? { acrossAttempts: true } : {};
  return retryingSame(
    (retry) =>
      actRedoingInterrupted(ctx, action_type, payload, {
        key: retry === 0 ? options.key : `${options.key}:retry:${retry}`,
        ...across,
      }),
    (contract) => (contract.status === 'FAILED' ? contract.error : null),
    {
      signal: ctx.signal,
      endedAt: contractEnded,
      ...(options.policy ? { policy: options.policy } : {}),
      ...(options.onRetry
        ? { onRetry: (retry: number, wait: number) => options.onRetry?.(retry, wait) }
        : {}),
    },
  );
}
