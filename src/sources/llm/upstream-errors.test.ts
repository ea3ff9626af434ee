/** Every provider's recorded error bodies read into their failure classes; Retry-After in each form. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recordingOf } from '../../dev/provider-fixture/index.ts';
import { PROVIDERS } from './providers.ts';
import { classifyUpstream, readUpstreamError, retryAfterMs } from './upstream-errors.ts';

const WANT: Record<string, string | null> = {
  rate_limited: 'rate_limited',
  server_error: null,
  unavailable: null,
  auth: 'auth',
  model_not_found: 'model_not_found',
  context_length: 'context_length_exceeded',
  content_filter_prompt: 'content_filter',
};

test('each provider’s recorded error bodies are read into their classes, with the provider’s message', () => {
  for (const p of PROVIDERS) {
    for (const [name, e] of Object.entries(recordingOf(p).errors)) {
      const body = JSON.parse(JSON.stringify(e.body).replaceAll('{model}', 'm-1'));
      const read = readUpstreamError(body, JSON.stringify(body));
      assert.ok(read.message.length > 0 && !read.message.startsWith('{'), `${p} ${name}: ${read.message}`);
      assert.equal(classifyUpstream(e.status, read), WANT[name], `${p} ${name}: ${read.message}`);
    }
  }
});

test('a mid-stream error with a code is classed as that answer would be', () => {
  const e = readUpstreamError({ error: { code: 'rate_limit_exceeded', message: 'slow down' } }, '');
  assert.equal(classifyUpstream(400, e), 'rate_limited');
  assert.equal(
    classifyUpstream(400, readUpstreamError({ error: { code: 'server_error', message: 'x' } }, '')),
    null,
  );
});

test('Retry-After in seconds, as a date, and Azure’s retry-after-ms', () => {
  const h = (m: Record<string, string>) => (n: string) => m[n];
  assert.equal(retryAfterMs(h({ 'retry-after': '2' })), 2000);
  assert.equal(retryAfterMs(h({ 'retry-after': '1', 'retry-after-ms': '750' })), 750);
  const now = Date.parse('2026-01-01T00:00:00Z');
  assert.equal(retryAfterMs(h({ 'retry-after': 'Thu, 01 Jan 2026 00:00:03 GMT' }), now), 3000);
  assert.equal(retryAfterMs(h({ 'retry-after': 'soon' })), null);
  assert.equal(retryAfterMs(h({})), null);
});
