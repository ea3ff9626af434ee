import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isStoreFault } from '../store-fault.ts';
import { connectError } from './connect-error.ts';
import { translatePostgresError } from './translate-error.ts';

const URL_WITH_SECRETS = 'postgres://app:s3cr%3Dt@db.example:5432/prod?password=q-s3cret&sslmode=require';

function pgError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

test('a connection failure names its cause and never the password', () => {
  const cases: Array<[unknown, string, RegExp]> = [
    [
      pgError('28P01', 'password authentication failed for user "app"'),
      'password',
      /password authentication failed/,
    ],
    [pgError('28000', 'role "app" does not exist'), 'role', /role/],
    [pgError('3D000', 'database "prod" does not exist'), 'database', /database does not exist/],
    [pgError('ECONNREFUSED', 'connect ECONNREFUSED 10.0.0.1:5432'), 'refused', /refused/],
    [pgError('ENOTFOUND', 'getaddrinfo ENOTFOUND db.example'), 'host', /host name does not resolve/],
    [
      Object.assign(
        new AggregateError([pgError('ECONNREFUSED', 'connect ECONNREFUSED ::1:5432')], 'all failed'),
        {},
      ),
      'refused',
      /refused/,
    ],
    [new Error('timeout expired'), 'timeout', /timed out/],
    [pgError('XX000', 'echo s3cr=t and q-s3cret back'), 'other', /connection failed/],
  ];
  for (const [err, cause, says] of cases) {
    const e = connectError(err, URL_WITH_SECRETS, 'NOEMA_DB');
    assert.equal(e.code, 'STORE_UNAVAILABLE');
    assert.equal(e.details.cause, cause);
    assert.match(e.message, says);
    assert.match(e.message, /db\.example/);
    assert.match(String(e.hint), /NOEMA_DB/);
    const shown = JSON.stringify({ message: e.message, details: e.details, hint: e.hint });
    assert.doesNotMatch(shown, /s3cr|q-s3cret/, shown);
  }
});

test('PostgreSQL data exceptions (class 22) are INVALID_INPUT, not untyped errors', () => {
  for (const code of ['22021', '22P02', '22003', '22001']) {
    const e = translatePostgresError(pgError(code, 'refused value')) as { code: string; status: number };
    assert.equal(e.code, 'INVALID_INPUT', code);
    assert.equal(e.status, 400);
  }
});

test('a statement written to a connection the server closed (EPIPE, ECONNRESET) is a retryable STORE_UNAVAILABLE: a store fault a run survives', () => {
  for (const code of ['EPIPE', 'ECONNRESET', 'ECONNABORTED']) {
    const e = translatePostgresError(pgError(code, `write ${code}`));
    assert.equal((e as { code: string }).code, 'STORE_UNAVAILABLE', code);
    assert.equal(isStoreFault(e), true, code);
  }
});
