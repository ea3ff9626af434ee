// Span ids derived from Noema's record ids: 16 lowercase hex digits, never all zero, the same in
// every process that derives them, and distinct within a trace.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { invocationSpanId, nodeSpanId, runSpanId } from '../../src/observability/trace-context.ts';

const RUN = '0193a6b2-7c1e-7d2a-8f3b-123456789abc';

test('a span id is 16 hex digits, derived the same way every time', () => {
  for (const id of [runSpanId(RUN), nodeSpanId(RUN, 'decide', 3, 1), invocationSpanId(RUN)]) {
    assert.match(id, /^[0-9a-f]{16}$/);
    assert.notEqual(id, '0000000000000000');
  }
  assert.equal(nodeSpanId(RUN, 'decide', 3, 1), nodeSpanId(RUN, 'decide', 3, 1));
  assert.notEqual(nodeSpanId(RUN, 'decide', 3, 1), nodeSpanId(RUN, 'decide', 3, 2), 'another attempt');
  assert.notEqual(runSpanId(RUN), invocationSpanId(RUN), 'a run and a call with the same id');
});

test('span ids do not change between releases (a run resumed by a newer process continues its trace)', () => {
  // The values of the first release that derived span ids with this hash.
  assert.equal(runSpanId(RUN), 'e09a79937162375f');
  assert.equal(nodeSpanId(RUN, 'decide', 3, 1), '3a2889b624623f9e');
  assert.equal(invocationSpanId(RUN), '425c0241de52139f');
});

test('200 000 node executions of one run get 200 000 span ids (a 32-bit id would collide)', () => {
  const seen = new Set<string>();
  for (let step = 0; step < 2_000; step++)
    for (let node = 0; node < 100; node++) seen.add(nodeSpanId(RUN, `subject_${node}.decide`, step, 1));
  assert.equal(seen.size, 200_000);
});
