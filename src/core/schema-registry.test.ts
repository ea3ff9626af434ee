import assert from 'node:assert/strict';
import { describe, it, test } from 'node:test';
import { ErrorCode, NoemaError } from './errors.ts';
import { SchemaRegistry, schemas } from './schema-registry.ts';

const person = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1 },
    age: { type: 'integer', minimum: 0 },
    tags: { type: 'array', items: { type: 'string' } },
  },
  required: ['name'],
  additionalProperties: false,
};

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof NoemaError);
    return e.code;
  }
  return undefined;
}

describe('SchemaRegistry.compile', () => {
  it('returns the same validator for equal schemas with different key order', () => {
    const r = new SchemaRegistry();
    const a = r.compile({ type: 'object', required: ['x'], properties: { x: { type: 'number' } } });
    const b = r.compile({ properties: { x: { type: 'number' } }, required: ['x'], type: 'object' });
    assert.equal(a, b);
    assert.equal(
      a.hash,
      r.hashOf({ properties: { x: { type: 'number' } }, required: ['x'], type: 'object' }),
    );
  });

  it('validates and returns the value on success', () => {
    const v = new SchemaRegistry().compile<{ name: string }>(person);
    const value = { name: 'Ada', age: 36 };
    const result = v.validate(value);
    assert.deepEqual(result, { ok: true, value });
  });

  it('reports every issue with a JSON pointer path and a readable message', () => {
    const v = new SchemaRegistry().compile(person);
    const result = v.validate({ age: -1, tags: ['a', 2], extra: true });
    assert.equal(result.ok, false);
    if (result.ok) return;
    const byPath = new Map(result.errors.map((e) => [`${e.path}|${e.keyword}`, e]));
    assert.equal(byPath.get('/age|minimum')?.message, '/age must be >= 0');
    assert.equal(byPath.get('/tags/1|type')?.message, '/tags/1 must be string');
    assert.deepEqual(byPath.get('|required')?.params, { missingProperty: 'name' });
    assert.match(byPath.get('|additionalProperties')?.message ?? '', /additional properties \("extra"\)/);
  });

  it('is not affected by later mutation of the caller schema object', () => {
    const r = new SchemaRegistry();
    const schema: Record<string, unknown> = { type: 'string' };
    const v = r.compile(schema);
    schema.type = 'number';
    assert.equal(v.validate('x').ok, true);
  });

  it('throws INVALID_SCHEMA with issues for a schema that breaks the meta-schema', () => {
    const r = new SchemaRegistry();
    try {
      r.compile({ type: 'strng' });
      assert.fail('expected a throw');
    } catch (e) {
      assert.ok(e instanceof NoemaError);
      assert.equal(e.code, ErrorCode.INVALID_SCHEMA);
      const errors = e.details.errors as { path: string }[];
      assert.ok(errors.some((issue) => issue.path === '/type'));
    }
  });

  it('keeps unknown formats as errors', () => {
    assert.equal(
      codeOf(() => new SchemaRegistry().compile({ type: 'string', format: 'no-such-format' })),
      ErrorCode.INVALID_SCHEMA,
    );
  });

  it('applies ajv-formats formats', () => {
    const v = new SchemaRegistry().compile({ type: 'string', format: 'email' });
    assert.equal(v.validate('a@example.com').ok, true);
    assert.equal(v.validate('not an email').ok, false);
  });

  it('compiles a schema with $id repeatedly without a duplicate-id crash', () => {
    const r = new SchemaRegistry();
    const first = r.compile({ $id: 'urn:noema:test:thing', type: 'string' });
    for (let i = 0; i < 100; i++) {
      assert.equal(r.compile({ type: 'string', $id: 'urn:noema:test:thing' }), first);
    }
  });

  it('rejects a different schema reusing an $id as INVALID_SCHEMA', () => {
    const r = new SchemaRegistry();
    r.compile({ $id: 'urn:noema:test:dup', type: 'string' });
    assert.equal(
      codeOf(() => r.compile({ $id: 'urn:noema:test:dup', type: 'number' })),
      ErrorCode.INVALID_SCHEMA,
    );
    assert.equal(r.compile({ $ref: 'urn:noema:test:dup' }).validate('still a string').ok, true);
  });

  it('lets a corrected schema take an $id whose earlier version failed to compile', () => {
    const r = new SchemaRegistry();
    const id = 'urn:noema:test:retry';
    assert.equal(
      codeOf(() => r.compile({ $id: id, type: 'string', format: 'bogus' })),
      ErrorCode.INVALID_SCHEMA,
    );
    assert.equal(r.compile({ $id: id, type: 'string' }).validate('ok').ok, true);
  });

  it('rejects non-JSON schemas as INVALID_SCHEMA', () => {
    const r = new SchemaRegistry();
    assert.equal(
      codeOf(() => r.compile([] as unknown as boolean)),
      ErrorCode.INVALID_SCHEMA,
    );
    assert.equal(
      codeOf(() => r.compile({ minimum: Number.NaN })),
      ErrorCode.INVALID_SCHEMA,
    );
  });
});

describe('SchemaRegistry.checkSchema', () => {
  it('returns ok for a valid schema and issues for an invalid one', () => {
    const r = new SchemaRegistry();
    assert.deepEqual(r.checkSchema(person), { ok: true, value: person });
    const bad = r.checkSchema({ minLength: -1 });
    assert.equal(bad.ok, false);
    if (!bad.ok) assert.equal(bad.errors[0]?.path, '/minLength');
    const unresolved = r.checkSchema({ $ref: '#/$defs/missing' });
    assert.equal(unresolved.ok, false);
  });
});

describe('SchemaRegistry.assertValid', () => {
  it('returns the value when valid', () => {
    assert.deepEqual(schemas.assertValid(person, { name: 'x' }), { name: 'x' });
  });

  it('throws SCHEMA_INVALID with details.errors by default', () => {
    try {
      schemas.assertValid(person, { name: '' }, { what: 'person' });
      assert.fail('expected a throw');
    } catch (e) {
      assert.ok(e instanceof NoemaError);
      assert.equal(e.code, ErrorCode.SCHEMA_INVALID);
      assert.match(e.message, /^person does not match schema: \/name must NOT have fewer than 1 characters/);
      assert.equal((e.details.errors as unknown[]).length, 1);
    }
  });

  it('throws the requested code', () => {
    assert.equal(
      codeOf(() => schemas.assertValid({ type: 'integer' }, 1.5, { code: ErrorCode.INVALID_INPUT })),
      ErrorCode.INVALID_INPUT,
    );
  });
});

test('the registry keeps at most maxSchemas compiled schemas and still validates evicted ones', () => {
  const reg = new SchemaRegistry({ maxSchemas: 4 });
  const schemaFor = (i: number) => ({ $id: `urn:noema:test:${i}`, type: 'object', required: [`k${i}`] });
  for (let i = 0; i < 200; i++) reg.compile(schemaFor(i));
  assert.equal(reg.size, 4, 'the cache is bounded');
  // Schema 0 was evicted (and removed from Ajv): compiling it again neither throws on its $id nor
  // validates wrongly.
  const again = reg.compile(schemaFor(0));
  assert.equal(again.validate({ k0: 1 }).ok, true);
  assert.equal(again.validate({ k1: 1 }).ok, false);
  assert.equal(reg.size, 4);
  // A schema still cached keeps its $id: a different schema cannot take it.
  assert.throws(() => reg.compile({ $id: 'urn:noema:test:199', type: 'string' }), { code: 'INVALID_SCHEMA' });
});
