// The demo answers ECS forms itself: each field's default, else its first allowed value, else a plain value of its type.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { autoAnswer } from '../../src/surfaces/cli/demo/agent.ts';

test('autoAnswer fills every field as a person choosing the obvious answer would', () => {
  const form = {
    title: 'Booking',
    fields: {
      type: 'object',
      properties: {
        day: { enum: ['monday', 'tuesday'] },
        seats: { type: 'integer' },
        confirm: { type: 'boolean' },
        note: { type: 'string' },
        room: { type: 'string', default: 'blue' },
      },
    },
  };
  assert.deepEqual(autoAnswer(form), { day: 'monday', seats: 1, confirm: true, note: 'demo', room: 'blue' });
});

test('autoAnswer of a form without fields is an empty answer', () => {
  assert.deepEqual(autoAnswer({ title: 'Continue?' }), {});
});
