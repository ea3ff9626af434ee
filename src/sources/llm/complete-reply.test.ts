import assert from 'node:assert/strict';
import { test } from 'node:test';
import { completeReplyOf } from './complete-reply.ts';

const ev = (delta: Record<string, unknown>, finish: string | null = null) =>
  [0, JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] })] as const;

test('chunks holding the stop event make a complete reply: the content deltas in order', () => {
  const chunks = [
    ev({ role: 'assistant', content: '' }),
    ev({ content: '{"a":' }),
    ev({ content: '1}' }),
    ev({}, 'stop'),
  ];
  assert.deepEqual(completeReplyOf(chunks), { text: '{"a":1}', finish_reason: 'stop', usage: null });
  assert.equal(completeReplyOf([...chunks, [0, '[DONE]'] as const])?.text, '{"a":1}');
});

test('chunks ending before the stop event, or ending otherwise, are not a reply to keep', () => {
  assert.equal(completeReplyOf([ev({ content: '{"a":' })]), null);
  assert.equal(completeReplyOf([ev({ content: '{"a":' }), [0, '[DONE]'] as const]), null, 'no finish event');
  assert.equal(completeReplyOf([ev({ content: '{"a":' }), ev({}, 'length')]), null);
  assert.equal(completeReplyOf([ev({ content: '{}' }), ev({}, 'content_filter')]), null);
  assert.equal(completeReplyOf([ev({ refusal: 'no' }), ev({}, 'stop')]), null);
  assert.equal(completeReplyOf([ev({ tool_calls: [{ index: 0 }] }), ev({}, 'stop')]), null);
  assert.equal(completeReplyOf([[0, 'not json'] as const, ev({}, 'stop')]), null);
});
