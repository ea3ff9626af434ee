/** The HTTP failure log: one line per store outage incident, 5xx with their request id, 4xx quiet. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { NoemaError } from '../../src/core/errors.ts';
import { errorReply, FailureLog } from '../../src/surfaces/http/errors.ts';

test('a store outage is logged once per incident; 5xx are logged with their request id; 4xx are not', () => {
  const lines: string[] = [];
  const log = new FailureLog((line) => lines.push(line));
  const down = errorReply(new NoemaError('STORE_UNAVAILABLE', 'PostgreSQL is unreachable'), 'r1');
  for (let i = 0; i < 5; i++) log.failed(down, 'GET', '/runs', `r${i}`);
  assert.equal(lines.length, 1);
  assert.match(lines[0]!, /store is unavailable .*GET \/runs.*request r0/);
  log.storeAnswered();
  log.storeAnswered();
  assert.equal(lines.length, 2);
  assert.match(lines[1]!, /answers again/);
  log.failed(down, 'GET', '/healthz', 'r9');
  assert.equal(lines.length, 3, 'a new outage is a new incident');
  log.failed(errorReply(new NoemaError('INVALID_INPUT', 'bad'), 'r10'), 'GET', '/runs', 'r10');
  assert.equal(lines.length, 3);
  log.failed(errorReply(new Error('boom'), 'r11'), 'GET', '/runs', 'r11');
  assert.equal(lines.length, 4);
  assert.match(lines[3]!, /GET \/runs failed \(request r11\)/);
});
