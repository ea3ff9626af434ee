/** run_turn's progress lines: a tool call a crash interrupted says what became of it. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { progressLine } from './worlds.ts';

test('a tool call says whether it was called, called again after a crash, or left with its outcome unknown', () => {
  assert.equal(
    progressLine({ kind: 'tool_call', tool_name: 'buy_candy', status: 'started' }),
    'tool buy_candy: called',
  );
  assert.match(
    progressLine({ kind: 'tool_call', tool_name: 'buy_candy', status: 'redone_after_interruption' }) ?? '',
    /^tool buy_candy: called again/,
  );
  assert.match(
    progressLine({ kind: 'tool_call', tool_name: 'buy_candy', status: 'outcome_unknown' }) ?? '',
    /^tool buy_candy: outcome unknown/,
  );
});
