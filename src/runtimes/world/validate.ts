/**
 * Validation on the turn's hot path with validators compiled once per schema object: the registry
 * keys its cache by content hash, which costs a canonical encoding and a sha256 of the schema on
 * every call. Schemas handed in are never mutated (stored documents, module constants).
 */
import {
  type JsonSchema,
  schemas,
  type ValidationResult,
  type Validator,
} from '../../core/schema-registry.ts';

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
