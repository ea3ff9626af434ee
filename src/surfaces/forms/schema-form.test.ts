import assert from 'node:assert/strict';
import { test } from 'node:test';
import { coerceAnswer, formFields } from './schema-form.ts';

const BOOKING = {
  type: 'object',
  required: ['day', 'people'],
  additionalProperties: false,
  properties: {
    day: { enum: ['monday', 'tuesday'] },
    people: { type: 'integer', minimum: 1, title: 'People' },
    vegan: { type: 'boolean' },
    table: { enum: [1, 2] },
    notes: { type: 'string' },
    extras: { type: 'array', items: { type: 'string' } },
  },
};

test('the fields of a form schema say what each input holds', () => {
  assert.deepEqual(
    formFields(BOOKING).map((f) => [f.name, f.input, f.required, f.options]),
    [
      ['day', 'choice', true, ['monday', 'tuesday']],
      ['people', 'number', true, []],
      ['vegan', 'boolean', false, []],
      ['table', 'choice', false, ['1', '2']],
      ['notes', 'text', false, []],
      ['extras', 'json', false, []],
    ],
  );
});

test('typed strings become the schema’s types (Ajv coerceTypes), empty optional fields are left out', () => {
  const r = coerceAnswer(BOOKING, {
    day: 'tuesday',
    people: '3',
    vegan: 'yes',
    table: '2',
    notes: '',
    extras: '["cake"]',
  });
  assert.deepEqual(r.errors, {});
  assert.deepEqual(r.value, { day: 'tuesday', people: 3, vegan: true, table: 2, extras: ['cake'] });
});

test('each refused value is named by its field; a missing required field too', () => {
  const r = coerceAnswer(BOOKING, { day: 'sunday', people: 'many', extras: 'not json' });
  assert.deepEqual(Object.keys(r.errors).sort(), ['day', 'extras', 'people']);
  assert.match(r.errors.day!, /must be one of "monday", "tuesday"/);
  assert.match(r.errors.people!, /integer/);
  assert.equal(coerceAnswer(BOOKING, { day: 'monday' }).errors.people, 'is required');
});
