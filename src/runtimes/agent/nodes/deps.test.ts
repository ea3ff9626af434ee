import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ContractFailure } from '../../../engine/index.ts';
import { isContentFailure } from './deps.ts';

const failure = (code: ContractFailure['code'], failure_class?: string): ContractFailure => ({
  code,
  message: 'x',
  retryable: false,
  details: failure_class ? { failure_class } : {},
});

describe('model-call failures are told apart by the typed contract error', () => {
  test('schema_invalid and non_json are content failures (the retry lane)', () => {
    assert.equal(isContentFailure({ error: failure('SOURCE_SCHEMA_INVALID', 'schema_invalid') }), true);
    assert.equal(isContentFailure({ error: failure('SOURCE_FAILED', 'non_json') }), true);
  });

  test('a reply cut off at the token limit (truncated) is one too: retried, told it was cut off', () => {
    assert.equal(isContentFailure({ error: failure('SOURCE_FAILED', 'truncated') }), true);
  });

  test('a call failure is not, whatever its message text says', () => {
    const network = { ...failure('SOURCE_FAILED', 'network'), message: 'schema_invalid: looks like one' };
    assert.equal(isContentFailure({ error: network }), false);
    assert.equal(isContentFailure({ error: failure('SOURCE_TIMEOUT', 'timeout') }), false);
    assert.equal(isContentFailure({ error: failure('INTERNAL') }), false);
    assert.equal(isContentFailure({ error: null }), false);
  });
});
