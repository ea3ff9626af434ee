import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { NoemaError } from '../../core/errors.ts';
import type { ContractStatus } from '../engine.ts';
import { CONTRACT_STATUSES, createContract, transition } from './transitions.ts';
import { observationOf } from './views.ts';

const LEGAL = new Set([
  'PENDING→RUNNING',
  'PENDING→WAITING',
  'PENDING→CANCELLED',
  'RUNNING→COMPLETED',
  'RUNNING→FAILED',
  'RUNNING→WAITING',
  'RUNNING→CANCELLED',
  'WAITING→RUNNING',
  'WAITING→CANCELLED',
]);

function inStatus(status: ContractStatus) {
  return { ...createContract('c1', 'tool_call', { x: 1 }, 'test', 1), status };
}

describe('ExecutionContract transition table', () => {
  for (const from of CONTRACT_STATUSES) {
    for (const to of CONTRACT_STATUSES) {
      const key = `${from}→${to}`;
      if (LEGAL.has(key)) {
        test(`${key} is legal and recorded with time and actor`, () => {
          const before = inStatus(from);
          const after = transition(before, { to, actor: 'node:tool', at: 42 });
          assert.equal(after.status, to);
          assert.deepEqual(after.transitions.at(-1), { from, to, at: 42, actor: 'node:tool' });
          assert.equal(before.status, from, 'the input contract is not mutated');
        });
      } else {
        test(`${key} is an INVALID_TRANSITION that changes nothing`, () => {
          const before = inStatus(from);
          const snapshot = structuredClone(before);
          assert.throws(
            () => transition(before, { to, actor: 'x', at: 1 }),
            (e: unknown) =>
              e instanceof NoemaError &&
              e.code === 'INVALID_TRANSITION' &&
              e.details.from === from &&
              e.details.to === to,
          );
          assert.deepEqual(before, snapshot);
        });
      }
    }
  }

  test('a new contract records its creation as null → PENDING', () => {
    const c = createContract('c9', 'ecs_request', {}, 'node:reason', 7);
    assert.deepEqual(c.transitions, [{ from: null, to: 'PENDING', at: 7, actor: 'node:reason' }]);
    assert.equal(c.result, null);
    assert.equal(c.error_message, null);
  });

  test('COMPLETED carries the result; FAILED the error message; observation mirrors both', () => {
    const running = transition(inStatus('PENDING'), { to: 'RUNNING', actor: 'a', at: 1 });
    const ok = transition(running, { to: 'COMPLETED', actor: 'a', at: 2, result: { sum: 5 } });
    assert.deepEqual(ok.result, { sum: 5 });
    assert.equal(observationOf(ok), '{"sum":5}');
    const bad = transition(running, { to: 'FAILED', actor: 'a', at: 2, error_message: 'boom' });
    assert.equal(bad.error_message, 'boom');
    assert.equal(observationOf(bad), 'Error: boom');
    assert.equal(observationOf(running), null);
  });
});
