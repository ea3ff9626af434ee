/** The retry lane's arithmetic: which failures are retried, after how long, within what budget. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { retryingSame, SAME_RETRY_POLICY, sameRetryWait } from './retry.ts';

const policy = { max_retries: 2, backoff_ms: 100, budget_ms: 5_000 };

test('only a retryable failure is retried; the wait is max(Retry-After, a doubling backoff)', () => {
  assert.equal(sameRetryWait({ retryable: false, details: {} }, 1, 0, policy), null);
  assert.equal(sameRetryWait(null, 1, 0, policy), null);
  assert.equal(sameRetryWait({ retryable: true, details: {} }, 1, 0, policy), 100);
  assert.equal(sameRetryWait({ retryable: true, details: {} }, 2, 100, policy), 200);
  assert.equal(sameRetryWait({ retryable: true, details: { retry_after_ms: 1000 } }, 1, 0, policy), 1000);
  assert.equal(sameRetryWait({ retryable: true, details: {} }, 3, 300, policy), null, 'retries spent');
  assert.ok(SAME_RETRY_POLICY.max_retries >= 1);
});

test('a Retry-After beyond the budget is not waited for: the failure is returned at once', async () => {
  assert.equal(sameRetryWait({ retryable: true, details: { retry_after_ms: 60_000 } }, 1, 0, policy), null);
  let calls = 0;
  const started = Date.now();
  const out = await retryingSame(
    async () => {
      calls++;
      return { retryable: true, details: { retry_after_ms: 60_000, failure_class: 'rate_limited' } };
    },
    (r) => r,
    { policy },
  );
  assert.equal(calls, 1);
  assert.equal(out.details.failure_class, 'rate_limited');
  assert.ok(Date.now() - started < 1000);
});

test('retries until success, each after its wait', async () => {
  const at: number[] = [];
  const out = await retryingSame(
    async (retry) => {
      at.push(Date.now());
      return retry < 2 ? { ok: false, retryable: true, details: { retry_after_ms: 150 } } : { ok: true };
    },
    (r) => (r.ok ? null : (r as { retryable: boolean; details: Record<string, unknown> })),
    { policy },
  );
  assert.equal(out.ok, true);
  assert.equal(at.length, 3);
  assert.ok(at[1]! - at[0]! >= 145 && at[2]! - at[1]! >= 195, JSON.stringify(at));
});
