import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { validateCompiled } from './compiled-validators.ts';
import { fromStrictDelivery, toStrictDelivery } from './strict-delivery.ts';
import { strictSubsetViolations } from './strict-schema.ts';

const rules = (schema: unknown) => strictSubsetViolations(schema).map((v) => `${v.rule} ${v.path}`);

describe('strict-subset checker', () => {
  test('a conforming schema has no violations', () => {
    const schema = {
      type: 'object',
      additionalProperties: false,
      required: ['a', 'b'],
      properties: {
        a: { type: ['string', 'null'], description: 'nullable' },
        b: {
          anyOf: [
            {
              type: 'object',
              additionalProperties: false,
              required: ['kind', 'x'],
              properties: { kind: { type: 'string', enum: ['one'] }, x: { type: 'integer' } },
            },
            {
              type: 'object',
              additionalProperties: false,
              required: ['kind'],
              properties: { kind: { type: 'string', enum: ['two'] } },
            },
            { type: 'null' },
          ],
        },
      },
    };
    assert.deepEqual(strictSubsetViolations(schema), []);
  });

  test('a root anyOf (the old ToolLoopOutput) is refused at the root', () => {
    assert.deepEqual(rules({ anyOf: [{ type: 'object' }] }).slice(0, 1), ['root_object ']);
  });

  test('open objects, optional properties, free-form objects and bounds are named by pointer and rule', () => {
    const got = rules({
      type: 'object',
      required: ['n'],
      properties: {
        n: { type: 'number', minimum: 0, maximum: 1 },
        args: { type: 'object' },
        s: { type: 'string', maxLength: 3 },
      },
    });
    assert.deepEqual(got, [
      'closed_object ',
      'unsupported_keyword /properties/n/minimum',
      'unsupported_keyword /properties/n/maximum',
      'all_required /properties/args',
      'closed_object /properties/args',
      'declared_properties /properties/args',
      'all_required /properties/s',
      'unsupported_keyword /properties/s/maxLength',
    ]);
  });

  test('oneOf, const, non-string enums, type unions and look-alike alternatives are refused', () => {
    const obj = (p: Record<string, unknown>) => ({
      type: 'object',
      additionalProperties: false,
      required: Object.keys(p),
      properties: p,
    });
    const got = rules(
      obj({
        a: { oneOf: [{ type: 'string' }] },
        b: { const: 'x' },
        c: { type: 'integer', enum: [1, 2] },
        d: { type: ['string', 'number'] },
        e: { anyOf: [obj({ x: { type: 'string' } }), obj({ y: { type: 'string' } })] },
      }),
    );
    assert.deepEqual(got, [
      'unsupported_keyword /properties/a/oneOf',
      'typed /properties/a',
      'unsupported_keyword /properties/b/const',
      'typed /properties/b',
      'enum_strings /properties/c/enum',
      'single_type /properties/d/type',
      'discriminated_alternatives /properties/e/anyOf',
    ]);
  });
});

describe('strict delivery', () => {
  const contract = {
    type: 'object',
    required: ['name', 'score'],
    additionalProperties: false,
    properties: {
      name: { type: 'string', minLength: 1 },
      score: { type: 'number', minimum: 0, maximum: 1 },
      note: { type: 'string' },
      args: { type: 'object' },
      tags: { type: 'object', additionalProperties: { type: 'string' } },
      shape: {
        oneOf: [
          {
            type: 'object',
            required: ['op', 'r'],
            additionalProperties: false,
            properties: { op: { const: 'circle' }, r: { type: 'number' } },
          },
          {
            type: 'object',
            required: ['op', 'w'],
            additionalProperties: false,
            properties: { op: { const: 'square' }, w: { type: 'number' } },
          },
        ],
      },
    },
  };

  test('a contract converts to a schema in the strict subset', () => {
    const d = toStrictDelivery(contract);
    assert.ok(d.ok);
    assert.deepEqual(strictSubsetViolations(d.schema), []);
    assert.deepEqual(d.schema.required, ['name', 'score', 'note', 'args', 'tags', 'shape']);
  });

  test('a delivered reply reads back into the contract shape, and the contract judges its bounds', () => {
    const d = toStrictDelivery(contract);
    assert.ok(d.ok);
    const reply = {
      name: 'a',
      score: 0.5,
      note: null,
      args: '{"x":[1,2]}',
      tags: [{ key: 'k', value: 'v' }],
      shape: { op: 'square', w: 2 },
    };
    assert.ok(validateCompiled(d.schema, reply).ok, 'the reply matches the delivered schema');
    const back = fromStrictDelivery(reply, contract);
    assert.deepEqual(back, {
      name: 'a',
      score: 0.5,
      args: { x: [1, 2] },
      tags: { k: 'v' },
      shape: { op: 'square', w: 2 },
    });
    assert.ok(validateCompiled(contract, back).ok);
    const absent = fromStrictDelivery({ ...reply, args: null, tags: null, shape: null }, contract);
    assert.deepEqual(absent, { name: 'a', score: 0.5 }, 'a null for an optional property is its absence');
    const outOfBounds = fromStrictDelivery({ ...reply, score: 602 }, contract);
    assert.ok(validateCompiled(d.schema, { ...reply, score: 602 }).ok, 'the subset has no bounds');
    assert.equal(validateCompiled(contract, outOfBounds).ok, false, 'the contract refuses 602');
  });

  test('a "__proto__" member of a reply stays a member of what it reads back as, never its prototype', () => {
    const schema = {
      type: 'object',
      required: ['action'],
      properties: { action: { type: 'string' }, extra: { type: 'object' } },
    };
    const reply = JSON.parse('{"__proto__":{"action":"delete"},"extra":{"__proto__":{"admin":true}}}');
    const back = fromStrictDelivery(reply, schema) as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(back), Object.prototype);
    assert.equal(back.action, undefined, 'no field comes from the member');
    assert.deepEqual(Object.keys(back), ['__proto__', 'extra']);
    assert.equal(
      JSON.stringify(back),
      '{"__proto__":{"action":"delete"},"extra":{"__proto__":{"admin":true}}}',
    );
    assert.equal(validateCompiled(schema, back).ok, false, 'the contract still lacks its action');
  });

  test('keywords with no strict-subset form are refused with pointer and provider rule', () => {
    const d = toStrictDelivery({
      type: 'object',
      properties: { a: { allOf: [{ type: 'string' }] }, b: { $ref: '#/x' } },
    });
    assert.equal(d.ok, false);
    if (d.ok) return;
    assert.deepEqual(
      d.violations.map((v) => v.path),
      ['/properties/a/allOf', '/properties/b/$ref'],
    );
    assert.match(d.violations[0]!.message, /OpenAI strict mode refuses allOf/);
  });

  test('a root that is not an object is refused', () => {
    const d = toStrictDelivery({ type: 'array', items: { type: 'string' } });
    assert.equal(d.ok, false);
    if (!d.ok) assert.equal(d.violations[0]!.rule, 'root_object');
  });
});
