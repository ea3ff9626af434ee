/**
 * A contract schema as a model is sent it (the strict subset, `strict-schema.ts`) and a decoded
 * reply read back into the contract's shape. The contract stays the judge: a caller validates
 * what `fromStrictDelivery` returns against the original schema, bounds and lengths included.
 *
 * The conversion, keyword by keyword:
 * - bounds, lengths, patterns and formats are dropped (checked after decoding);
 * - `oneOf` becomes `anyOf`; a string `const` a one-value `enum`;
 * - every object is closed and lists every property as required; an optional property becomes
 *   nullable, and a null the model sends for it is removed again on decoding;
 * - a map (`additionalProperties: <schema>` without properties) becomes an array of
 *   `{ key, value }` pairs; a free-form value (`{}`, a bare `{"type":"object"}`) a string of JSON.
 * Keywords with no faithful equivalent (`allOf`, `not`, `if`, `$ref`, `patternProperties`, …)
 * are refused with their JSON pointer and the provider rule.
 */
import { validateCompiled } from './compiled-validators.ts';
import { NoemaError } from './errors.ts';
import { setOwn } from './own.ts';
import type { JsonSchema } from './schema-registry.ts';
import { type StrictViolation, strictSubsetViolations } from './strict-schema.ts';

type Schema = Record<string, unknown>;
export type StrictDelivery = { ok: true; schema: Schema } | { ok: false; violations: StrictViolation[] };

const DROPPED = new Set([
  '$schema',
  '$id',
  '$comment',
  'default',
  'examples',
  'readOnly',
  'writeOnly',
  'deprecated',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'contentMediaType',
  'contentEncoding',
]);

const REFUSED = new Map<string, string>([
  ['allOf', 'OpenAI strict mode refuses allOf and Gemini ignores it'],
  ['not', 'OpenAI strict mode refuses not'],
  ['if', 'OpenAI strict mode refuses if/then/else'],
  ['then', 'OpenAI strict mode refuses if/then/else'],
  ['else', 'OpenAI strict mode refuses if/then/else'],
  ['$ref', 'Gemini and llama.cpp resolve $ref only in part'],
  ['$defs', 'Gemini and llama.cpp resolve $ref only in part'],
  ['definitions', 'Gemini and llama.cpp resolve $ref only in part'],
  ['patternProperties', 'OpenAI strict mode refuses patternProperties'],
  ['propertyNames', 'OpenAI strict mode refuses propertyNames'],
  ['dependentRequired', 'OpenAI strict mode refuses dependentRequired'],
  ['dependentSchemas', 'OpenAI strict mode refuses dependentSchemas'],
  ['unevaluatedProperties', 'OpenAI strict mode refuses unevaluatedProperties'],
  ['unevaluatedItems', 'OpenAI strict mode refuses unevaluatedItems'],
  ['prefixItems', 'Gemini refuses prefixItems'],
  ['contains', 'OpenAI strict mode refuses contains'],
]);

const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);
const ptr = (path: string, key: string | number) =>
  `${path}/${String(key).replaceAll('~', '~0').replaceAll('/', '~1')}`;
const typesOf = (s: Schema): string[] =>
  Array.isArray(s.type) ? (s.type as string[]) : typeof s.type === 'string' ? [s.type] : [];

/** Keywords that make a schema without types more than "any value". */
const NOT_FREE_FORM = ['enum', 'const', 'anyOf', 'oneOf', ...REFUSED.keys()];

/** Whether `s` names type `t` (`type: t`, or `t` among `type: [...]`); no array is made. */
const hasType = (s: Schema, t: string): boolean =>
  s.type === t || (Array.isArray(s.type) && (s.type as unknown[]).includes(t));

/** How many types `s` names (`typesOf(s).length`). */
const typeCount = (s: Schema): number =>
  Array.isArray(s.type) ? s.type.length : typeof s.type === 'string' ? 1 : 0;

/**
 * A value of any shape: sent as a string of JSON. Read for every member of every reply a model
 * delivers, so it makes no arrays.
 */
function isFreeForm(s: JsonSchema): boolean {
  if (s === true) return true;
  if (!isSchema(s)) return false;
  // The types it names other than null: how many, and the last of them.
  let count = 0;
  let only: unknown;
  if (typeof s.type === 'string') {
    if (s.type !== 'null') {
      count = 1;
      only = s.type;
    }
  } else if (Array.isArray(s.type)) {
    // Indexed: until this is optimized, a `for…of` makes an iterator result per element.
    const types = s.type as unknown[];
    for (let i = 0; i < types.length; i++) {
      if (types[i] === 'null') continue;
      count++;
      only = types[i];
    }
  }
  if (count === 0) {
    for (let i = 0; i < NOT_FREE_FORM.length; i++) if (NOT_FREE_FORM[i]! in s) return false;
    return true;
  }
  return (
    count === 1 &&
    only === 'object' &&
    !isSchema(s.properties) &&
    !isSchema(s.additionalProperties) &&
    s.additionalProperties !== false
  );
}

const isMap = (s: Schema) =>
  hasType(s, 'object') && !isSchema(s.properties) && isSchema(s.additionalProperties);

function acceptsNull(s: JsonSchema): boolean {
  if (s === true) return true;
  if (!isSchema(s)) return false;
  if (isFreeForm(s) && typeCount(s) === 0) return true;
  if (hasType(s, 'null') || s.const === null) return true;
  if (Array.isArray(s.enum) && s.enum.includes(null)) return true;
  const alts = (s.anyOf ?? s.oneOf) as JsonSchema[] | undefined;
  if (!Array.isArray(alts)) return false;
  for (const alt of alts) if (acceptsNull(alt)) return true;
  return false;
}

function nullable(s: Schema): Schema {
  if (Array.isArray(s.anyOf)) {
    const alts = s.anyOf as Schema[];
    return alts.some((a) => isSchema(a) && a.type === 'null')
      ? s
      : { ...s, anyOf: [...alts, { type: 'null' }] };
  }
  const out = { ...s };
  const types = typesOf(s);
  if (types.length > 0 && !types.includes('null')) out.type = [...types, 'null'];
  if (Array.isArray(s.enum) && !s.enum.includes(null)) out.enum = [...s.enum, null];
  return out;
}

export interface StrictDeliveryOptions {
  /**
   * Keep what is dropped where the model reads it: each dropped constraint (bounds, lengths,
   * pattern, format, …) is appended to the schema's `description` ("minimum 0, maximum 1"), as a
   * provider that ignores the keyword would otherwise say nothing of it.
   */
  describeDropped?: boolean;
}

/** Constraints the model can be told of in words when the keyword itself cannot be sent. */
const DESCRIBED = new Set([
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'default',
]);

/** `schema` in the strict subset, or every reason it cannot be. */
export function toStrictDelivery(schema: JsonSchema, options: StrictDeliveryOptions = {}): StrictDelivery {
  const refused: StrictViolation[] = [];
  const converted = convert(schema, '', refused, options.describeDropped === true);
  if (refused.length > 0) return { ok: false, violations: refused };
  const violations = strictSubsetViolations(converted);
  return violations.length > 0 ? { ok: false, violations } : { ok: true, schema: converted };
}

function convert(s: JsonSchema, path: string, refused: StrictViolation[], describe: boolean): Schema {
  const told = describe && isSchema(s) ? describedConstraints(s) : '';
  const own = isSchema(s) && typeof s.description === 'string' ? s.description : '';
  const joined = own && told ? `${own} (${told})` : own || told;
  const desc = joined ? { description: joined } : {};
  if (isFreeForm(s)) {
    const withNull = isSchema(s) && typesOf(s).includes('null');
    const note = 'A JSON value, encoded as a string of JSON.';
    return {
      type: withNull ? ['string', 'null'] : 'string',
      description: desc.description ? `${desc.description} (${note})` : note,
    };
  }
  if (!isSchema(s)) {
    refused.push({ path, rule: 'typed', message: 'false accepts no value' });
    return {};
  }
  const out: Schema = {};
  for (const [key, value] of Object.entries(s)) {
    if (DROPPED.has(key)) continue;
    const why = REFUSED.get(key);
    if (why) {
      refused.push({
        path: ptr(path, key),
        rule: 'unsupported_keyword',
        message: `"${key}" has no strict-subset equivalent (${why})`,
      });
      continue;
    }
    switch (key) {
      case 'const':
        if (value !== null && typeof value !== 'string')
          refused.push({
            path: ptr(path, key),
            rule: 'enum_strings',
            message: 'Gemini enums hold strings only',
          });
        out.enum = [value];
        break;
      case 'oneOf':
      case 'anyOf':
        out.anyOf = (value as JsonSchema[]).map((v, i) =>
          convert(v, ptr(ptr(path, key), i), refused, describe),
        );
        break;
      case 'items':
        out.items = convert(value as JsonSchema, ptr(path, key), refused, describe);
        break;
      case 'properties':
      case 'required':
      case 'additionalProperties':
        break;
      case 'description':
        if (desc.description !== undefined) out.description = desc.description;
        break;
      default:
        out[key] = value;
    }
  }
  if (desc.description !== undefined) out.description = desc.description;
  if (Array.isArray(out.enum) && out.type === undefined) {
    const values = out.enum as unknown[];
    if (values.every((v) => typeof v === 'string' || v === null))
      out.type = values.includes(null) ? ['string', 'null'] : 'string';
  }
  if (isMap(s)) {
    const value = convert(
      s.additionalProperties as Schema,
      ptr(path, 'additionalProperties'),
      refused,
      describe,
    );
    const pairs: Schema = {
      type: typesOf(s).includes('null') ? ['array', 'null'] : 'array',
      ...desc,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['key', 'value'],
        properties: { key: { type: 'string' }, value },
      },
    };
    if (pairs.description === undefined) pairs.description = 'A map, as a list of {key, value} pairs.';
    return pairs;
  }
  if (typesOf(s).includes('object') && isSchema(s.properties)) {
    const required = new Set(Array.isArray(s.required) ? (s.required as string[]) : []);
    const properties: Schema = {};
    for (const [name, sub] of Object.entries(s.properties)) {
      const c = convert(sub as JsonSchema, ptr(ptr(path, 'properties'), name), refused, describe);
      properties[name] = required.has(name) ? c : nullable(c);
    }
    out.properties = properties;
    out.required = Object.keys(properties);
    out.additionalProperties = false;
  }
  if (typesOf(s).includes('array') && s.items === undefined)
    out.items = convert(true, ptr(path, 'items'), refused, describe);
  return out;
}

/** The dropped constraints of `s` in words: `minimum 0, maximum 1`. */
function describedConstraints(s: Schema): string {
  return Object.entries(s)
    .filter(([k]) => DESCRIBED.has(k))
    .map(([k, v]) => `${k} ${JSON.stringify(v)}`)
    .join(', ');
}

/**
 * A reply decoded under `toStrictDelivery(schema)` read back into `schema`'s shape: nulls of
 * optional properties removed, `{key, value}` pairs made a map, strings of JSON parsed. A value
 * that does not have the delivered shape is left as it is, for the contract to judge.
 */
export function fromStrictDelivery(value: unknown, schema: JsonSchema): unknown {
  if (isFreeForm(schema)) {
    if (typeof value !== 'string') return value;
    try {
      return JSON.parse(value);
    } catch {
      return value;
    }
  }
  if (!isSchema(schema)) return value;
  const alts = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (Array.isArray(alts)) {
    for (const alt of alts) {
      const decoded = fromStrictDelivery(value, alt);
      if (validateCompiled(alt, decoded).ok) return decoded;
    }
    return value;
  }
  if (isMap(schema) && Array.isArray(value)) {
    const entries = value.map((p) =>
      isSchema(p) && typeof p.key === 'string'
        ? [p.key, fromStrictDelivery(p.value, schema.additionalProperties as Schema)]
        : [String(p), p],
    );
    return Object.fromEntries(entries);
  }
  if (isSchema(value) && isSchema(schema.properties)) {
    const properties = schema.properties;
    const required = Array.isArray(schema.required) ? (schema.required as unknown[]) : NONE_REQUIRED;
    const out: Record<string, unknown> = {};
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      const v = value[key];
      const sub = Object.hasOwn(properties, key) ? (properties[key] as JsonSchema) : undefined;
      // A model's `"__proto__"` member stays a member: assigned, the copy would inherit its fields.
      if (sub === undefined) setOwn(out, key, v);
      else if (v === null && !required.includes(key) && !acceptsNull(sub)) continue;
      else setOwn(out, key, fromStrictDelivery(v, sub));
    }
    return out;
  }
  if (Array.isArray(value) && hasType(schema, 'array'))
    return value.map((v) => fromStrictDelivery(v, (schema.items ?? true) as JsonSchema));
  return value;
}

const NONE_REQUIRED: readonly unknown[] = [];

/**
 * `toStrictDelivery` for a schema Noema authors: one without a strict-subset form is a bug, found
 * at load (`INVALID_SCHEMA`, naming the first violation).
 */
export function strictDeliveryOf(schema: JsonSchema, name: string): Schema {
  const d = toStrictDelivery(schema);
  if (d.ok) return d.schema;
  const v = d.violations[0]!;
  throw new NoemaError('INVALID_SCHEMA', `${name} has no strict-subset form: ${v.path || '/'} ${v.message}`, {
    details: { violations: d.violations },
  });
}
