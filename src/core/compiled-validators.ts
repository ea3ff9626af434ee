/**
 * Compiled validators per schema object, so a hot path validates without re-hashing the schema
 * on every call (the registry keys its cache by content hash). Schemas handed in must not be
 * mutated afterwards; stored schemas and module constants never are.
 */
import type { JsonSchema, ValidationResult, Validator } from './schema-registry.ts';
import { schemas } from './schema-registry.ts';

const compiled = new WeakMap<object, Validator>();

export function validateCompiled<T = unknown>(schema: JsonSchema, value: unknown): ValidationResult<T> {
  if (typeof schema === 'boolean') return schemas.validate<T>(schema, value);
  let v = compiled.get(schema);
  if (!v) {
    v = schemas.compile(schema);
    compiled.set(schema, v);
  }
  return v.validate(value) as ValidationResult<T>;
}
