/**
 * An object JSON Schema (an ECS form's `fields`) as form fields, and typed answers to it: the strings
 * a person typed are coerced by Ajv `coerceTypes` and checked, each error named by its field. Shared
 * by the browser's ECS form and `noema agent chat`.
 */
import type { Ajv2020, ValidateFunction } from 'ajv/dist/2020.js';
import { createAjv } from '../../core/ajv.ts';
import { canonicalJson } from '../../core/canonical-json.ts';
import { LruMap } from '../../core/lru.ts';

export interface FormField {
  name: string;
  /** What the input holds: a text box, a number, yes/no, one of `options`, or JSON (objects, arrays). */
  input: 'text' | 'number' | 'boolean' | 'choice' | 'json';
  required: boolean;
  /** The choices of an enum, as the strings a form posts. */
  options: string[];
  title: string | undefined;
  description: string | undefined;
}

export interface CoercedAnswer {
  /** The answer as typed values (what could not be coerced is left as typed, for the validator to name). */
  value: Record<string, unknown>;
  /** Field name → why its value is refused; `''` for errors about the whole answer. Empty when valid. */
  errors: Record<string, string>;
}

type Schema = Record<string, unknown>;

let ajv: Ajv2020 | undefined;
const compiled = new LruMap<string, ValidateFunction>(200);

function validatorOf(schema: Schema): ValidateFunction {
  const key = canonicalJson(schema);
  let fn = compiled.get(key);
  if (!fn) {
    // A private copy without `$id`: forms are compiled by content, never registered by name.
    const { $id: _id, ...own } = JSON.parse(key) as Schema;
    ajv ??= createAjv({ coerceTypes: true, allErrors: true, strict: false, logger: false });
    fn = ajv.compile(own);
    compiled.set(key, fn);
  }
  return fn;
}

function propertiesOf(schema: Schema): Array<[string, Schema]> {
  const props = schema.properties;
  if (!props || typeof props !== 'object') return [];
  return Object.entries(props as Record<string, unknown>).map(([k, v]) => [
    k,
    v && typeof v === 'object' ? (v as Schema) : {},
  ]);
}

function inputOf(prop: Schema): FormField['input'] {
  if (Array.isArray(prop.enum)) return 'choice';
  const type = Array.isArray(prop.type) ? prop.type.find((t) => t !== 'null') : prop.type;
  if (type === 'number' || type === 'integer') return 'number';
  if (type === 'boolean') return 'boolean';
  if (type === 'object' || type === 'array') return 'json';
  return 'text';
}

/** The fields of an object schema, in its properties' order. */
export function formFields(schema: unknown): FormField[] {
  const s = (schema && typeof schema === 'object' ? schema : {}) as Schema;
  const required = new Set(Array.isArray(s.required) ? s.required.map(String) : []);
  return propertiesOf(s).map(([name, prop]) => ({
    name,
    input: inputOf(prop),
    required: required.has(name),
    options: Array.isArray(prop.enum)
      ? prop.enum.map((v) => (typeof v === 'string' ? v : JSON.stringify(v)))
      : [],
    title: typeof prop.title === 'string' ? prop.title : undefined,
    description: typeof prop.description === 'string' ? prop.description : undefined,
  }));
}

function typed(field: FormField, raw: string, enumValues: unknown[]): unknown {
  if (field.input === 'choice') {
    const i = field.options.indexOf(raw);
    return i >= 0 ? enumValues[i] : raw;
  }
  if (field.input === 'boolean') {
    if (/^(y|yes|true|1|on)$/i.test(raw.trim())) return true;
    if (/^(n|no|false|0|off)$/i.test(raw.trim())) return false;
    return raw;
  }
  if (field.input === 'json') {
    try {
      return JSON.parse(raw);
    } catch {
      return raw;
    }
  }
  return raw;
}

/**
 * The answer to `schema` from the strings typed for its fields (`raw`, by field name): empty optional
 * fields are left out, choices map back to their enum values, JSON fields are parsed, and Ajv
 * (`coerceTypes`) turns "3" into 3 and "true" into true before checking the whole answer.
 */
export function coerceAnswer(schema: unknown, raw: Readonly<Record<string, string>>): CoercedAnswer {
  const s = (schema && typeof schema === 'object' ? schema : {}) as Schema;
  const props = new Map(propertiesOf(s));
  const value: Record<string, unknown> = {};
  for (const field of formFields(s)) {
    const text = raw[field.name];
    if (text === undefined || (text.trim() === '' && field.input !== 'text')) continue;
    if (text === '' && !field.required) continue;
    const enumValues = (props.get(field.name)?.enum as unknown[] | undefined) ?? [];
    value[field.name] = typed(field, text, enumValues);
  }
  const validate = validatorOf(s);
  if (validate(value)) return { value, errors: {} };
  const errors: Record<string, string> = {};
  for (const e of validate.errors ?? []) {
    const params = e.params as Record<string, unknown>;
    const field =
      e.instancePath.split('/')[1] ??
      (typeof params.missingProperty === 'string'
        ? params.missingProperty
        : typeof params.additionalProperty === 'string'
          ? params.additionalProperty
          : '');
    const name = field.replace(/~1/g, '/').replace(/~0/g, '~');
    if (errors[name]) continue;
    errors[name] =
      e.keyword === 'required'
        ? 'is required'
        : e.keyword === 'additionalProperties'
          ? 'is not a field of this form'
          : e.keyword === 'enum'
            ? `must be one of ${((params.allowedValues as unknown[]) ?? []).map((v) => JSON.stringify(v)).join(', ')}`
            : (e.message ?? 'is invalid');
  }
  return { value, errors };
}
