import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  ERROR_CODES,
  ErrorCode,
  errorEnvelope,
  invalidInput,
  isErrorCode,
  isNoemaError,
  NoemaError,
  toNoemaError,
} from './errors.ts';

describe('NoemaError', () => {
  it('carries code, message, details, hint, retryable and status', () => {
    const e = new NoemaError(ErrorCode.CONFLICT, 'taken', {
      details: { id: 'x' },
      hint: 'pick another',
      retryable: true,
      status: 409,
    });
    assert.ok(e instanceof Error);
    assert.equal(e.name, 'NoemaError');
    assert.equal(e.code, 'CONFLICT');
    assert.equal(e.message, 'taken');
    assert.deepEqual(e.details, { id: 'x' });
    assert.equal(e.hint, 'pick another');
    assert.equal(e.retryable, true);
    assert.equal(e.status, 409);
  });

  it('defaults to empty details and not retryable', () => {
    const e = new NoemaError('INTERNAL', 'm');
    assert.deepEqual(e.details, {});
    assert.equal(e.retryable, false);
    assert.equal(e.hint, undefined);
    assert.equal(e.status, undefined);
  });

  it('toJSON serializes the public fields only, omitting an absent hint', () => {
    const e = new NoemaError(ErrorCode.NOT_FOUND, 'gone', { details: { id: 1 }, status: 404 });
    assert.deepEqual(JSON.parse(JSON.stringify(e)), {
      code: 'NOT_FOUND',
      message: 'gone',
      details: { id: 1 },
      retryable: false,
    });
    const withHint = new NoemaError('INTERNAL', 'm', { hint: 'h' }).toJSON();
    assert.equal(withHint.hint, 'h');
  });
});

describe('toNoemaError', () => {
  it('returns NoemaErrors unchanged', () => {
    const e = invalidInput('bad');
    assert.equal(toNoemaError(e), e);
  });

  it('wraps unknown errors as INTERNAL without putting the stack in details', () => {
    const original = new TypeError('boom');
    const e = toNoemaError(original);
    assert.equal(e.code, ErrorCode.INTERNAL);
    assert.equal(e.message, 'boom');
    assert.equal(e.cause, original);
    assert.doesNotMatch(JSON.stringify(e), /at .*errors\.test\.ts/);
    assert.equal(JSON.stringify(e).includes(original.stack ?? '\0'), false);
  });

  it('wraps non-Error throwables', () => {
    assert.equal(toNoemaError('text').message, 'text');
    assert.equal(toNoemaError(42).code, ErrorCode.INTERNAL);
    assert.equal(isNoemaError(toNoemaError(undefined)), true);
  });
});

describe('errorEnvelope', () => {
  it('builds the REST envelope with request and correlation ids', () => {
    const env = errorEnvelope(invalidInput('bad name', { field: 'name' }, 'use letters'), {
      request_id: 'r1',
      correlation_id: 'c1',
    });
    assert.deepEqual(env, {
      code: 'INVALID_INPUT',
      message: 'bad name',
      details: { field: 'name' },
      retryable: false,
      request_id: 'r1',
      correlation_id: 'c1',
      hint: 'use letters',
    });
  });

  it('omits absent correlation_id and hint, and wraps foreign errors', () => {
    const env = errorEnvelope(new Error('x'), { request_id: 'r2' });
    assert.equal(env.code, 'INTERNAL');
    assert.equal('correlation_id' in env, false);
    assert.equal('hint' in env, false);
  });
});

describe('invalidInput', () => {
  it('creates INVALID_INPUT with status 400', () => {
    const e = invalidInput('m', { field: 'f' });
    assert.equal(e.code, 'INVALID_INPUT');
    assert.equal(e.status, 400);
    assert.deepEqual(e.details, { field: 'f' });
  });
});

describe('isNoemaError', () => {
  it('distinguishes NoemaErrors from other values', () => {
    assert.equal(isNoemaError(new NoemaError('INTERNAL', 'm')), true);
    assert.equal(isNoemaError(new Error('m')), false);
    assert.equal(isNoemaError({ code: 'X', message: 'm', details: {} }), false);
  });
});

describe('error codes', () => {
  it('are a closed union: an unlisted code does not type-check', () => {
    // @ts-expect-error 'NOT_A_CODE' is not in ERROR_CODES (tsc fails here if the union widens to string)
    const e = new NoemaError('NOT_A_CODE', 'm');
    assert.equal(isErrorCode(e.code), false);
    assert.equal(isErrorCode('INVALID_INPUT'), true);
  });

  it('are listed once each, in UPPER_SNAKE_CASE', () => {
    assert.equal(new Set(ERROR_CODES).size, ERROR_CODES.length);
    for (const code of ERROR_CODES) assert.match(code, /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/);
  });

  it('every code a NoemaError is raised with in src/ is listed', () => {
    const src = join(import.meta.dirname, '..');
    const files = readdirSync(src, { recursive: true, encoding: 'utf8' }).filter(
      (f) => f.endsWith('.ts') && !f.endsWith('.test.ts') && !f.endsWith('.spec.ts'),
    );
    const unlisted: string[] = [];
    for (const f of files) {
      const text = readFileSync(join(src, f), 'utf8');
      for (const m of text.matchAll(/NoemaError\(\s*'([A-Z_]+)'/g)) {
        if (!isErrorCode(m[1])) unlisted.push(`${f}: ${m[1]}`);
      }
    }
    assert.ok(files.length > 50, 'the scan found the source tree');
    assert.deepEqual(unlisted, []);
  });
});
