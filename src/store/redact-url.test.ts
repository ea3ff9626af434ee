import assert from 'node:assert/strict';
import { test } from 'node:test';
import { redactUrl } from './redact-url.ts';

test('redactUrl hides the userinfo password and secret query parameters', () => {
  assert.equal(redactUrl('postgres://u:pw@h:5432/db'), 'postgres://u:***@h:5432/db');
  const q = redactUrl('postgres://u@h/db?password=sekrit&sslmode=require&sslpassword=k2');
  assert.doesNotMatch(q, /sekrit|k2/);
  assert.match(q, /sslmode=require/);
  assert.match(q, /password=\*\*\*/);
});

test('redactUrl never echoes an unparsable value', () => {
  assert.equal(redactUrl('postgres://u:p@[bad'), '<invalid url>');
});
