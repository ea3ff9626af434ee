/**
 * The strict subset: the JSON Schema every provider's constrained decoder accepts, and a checker
 * that names each violation by JSON pointer and rule. Written from the providers' published rules:
 *
 * - OpenAI, Structured Outputs "Supported schemas" (platform.openai.com/docs/guides/structured-outputs):
 *   the root must be an object, not `anyOf`; every object sets `additionalProperties: false` and lists
 *   every property in `required` (an optional field is a nullable one); unions are `anyOf`, never
 *   `oneOf`/`allOf`/`not`/`if`; length keywords and formats are refused in strict mode; at most
 *   10 levels of object nesting.
 * - Gemini, "Structured output" (ai.google.dev/gemini-api/docs/structured-output): unions are `anyOf`
 *   (`oneOf`/`allOf` are ignored), `enum` holds strings, unsupported keywords are silently ignored —
 *   a bound is not enforced.
 * - llama.cpp, grammars/README.md "JSON Schema to grammar": `minimum`/`maximum` and string
 *   `pattern`/`format` are partly or not enforced, a bare `{"type":"object"}` decodes only as what the
 *   grammar allows, and a schema it cannot convert becomes no grammar at all.
 *
 * What the subset lacks (bounds, lengths, patterns) the caller validates after decoding.
 */

/** One rule of the subset, as a violation names it. */
export type StrictRule =
  | 'root_object'
  | 'closed_object'
  | 'all_required'
  | 'declared_properties'
  | 'typed'
  | 'unsupported_keyword'
  | 'enum_strings'
  | 'single_type'
  | 'discriminated_alternatives'
  | 'max_depth';

export interface StrictViolation {
  /** JSON pointer into the schema. */
  path: string;
  rule: StrictRule;
  message: string;
}

/** Keywords the subset holds; anything else is `unsupported_keyword`. */
export const STRICT_KEYWORDS: ReadonlySet<string> = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'anyOf',
  'description',
  'title',
]);

/** Why a keyword is outside the subset, for messages that name the provider rule. */
const KEYWORD_RULES: Record<string, string> = {
  oneOf: 'OpenAI strict mode and Gemini accept only anyOf for alternatives',
  allOf: 'OpenAI strict mode refuses allOf; Gemini ignores it',
  not: 'OpenAI strict mode refuses not',
  const: 'Gemini has no const: use a one-value enum',
  minimum: 'llama.cpp grammars do not enforce numeric bounds',
  maximum: 'llama.cpp grammars do not enforce numeric bounds',
  exclusiveMinimum: 'llama.cpp grammars do not enforce numeric bounds',
  exclusiveMaximum: 'llama.cpp grammars do not enforce numeric bounds',
  multipleOf: 'llama.cpp grammars do not enforce numeric bounds',
  minLength: 'OpenAI strict mode refuses string lengths',
  maxLength: 'OpenAI strict mode refuses string lengths',
  pattern: 'Gemini ignores pattern; llama.cpp supports only part of it',
  format: 'OpenAI strict mode accepts few formats; Gemini ignores most',
  minItems: 'OpenAI strict mode limits array bounds; llama.cpp grammars grow with them',
  maxItems: 'OpenAI strict mode limits array bounds; llama.cpp grammars grow with them',
  patternProperties: 'OpenAI strict mode refuses patternProperties',
  $ref: 'Gemini and llama.cpp resolve $ref only in part',
};

const MAX_OBJECT_DEPTH = 10;

type Schema = Record<string, unknown>;
const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);
const ptr = (path: string, key: string | number) =>
  `${path}/${String(key).replaceAll('~', '~0').replaceAll('/', '~1')}`;

/** Every violation of the strict subset in `schema`, in document order; empty when it conforms. */
export function strictSubsetViolations(schema: unknown): StrictViolation[] {
  const out: StrictViolation[] = [];
  if (!isSchema(schema) || schema.type !== 'object')
    out.push({
      path: '',
      rule: 'root_object',
      message:
        'the root must be {"type":"object"} (OpenAI strict mode refuses any other root, anyOf included)',
    });
  if (isSchema(schema)) walk(schema, '', 0, out);
  return out;
}

function walk(s: Schema, path: string, depth: number, out: StrictViolation[]): void {
  for (const key of Object.keys(s))
    if (!STRICT_KEYWORDS.has(key))
      out.push({
        path: ptr(path, key),
        rule: 'unsupported_keyword',
        message: `"${key}" is outside the strict subset${KEYWORD_RULES[key] ? ` (${KEYWORD_RULES[key]})` : ''}`,
      });
  const types = Array.isArray(s.type) ? s.type : s.type === undefined ? [] : [s.type];
  if (types.filter((t) => t !== 'null').length > 1)
    out.push({
      path: ptr(path, 'type'),
      rule: 'single_type',
      message: 'a type list may add only "null" to one type (use anyOf of objects for alternatives)',
    });
  if (types.length === 0 && s.anyOf === undefined)
    out.push({
      path,
      rule: 'typed',
      message: 'every schema names its type (an untyped schema decodes as anything, or not at all)',
    });
  if (Array.isArray(s.enum) && s.enum.some((v) => v !== null && typeof v !== 'string'))
    out.push({ path: ptr(path, 'enum'), rule: 'enum_strings', message: 'Gemini enums hold strings only' });
  if (types.includes('object')) checkObject(s, path, depth + 1, out);
  if (types.includes('array')) {
    if (isSchema(s.items)) walk(s.items, ptr(path, 'items'), depth, out);
    else out.push({ path, rule: 'typed', message: 'an array names the schema of its items' });
  }
  if (Array.isArray(s.anyOf)) checkAlternatives(s.anyOf, ptr(path, 'anyOf'), depth, out);
}

function checkObject(s: Schema, path: string, depth: number, out: StrictViolation[]): void {
  if (depth > MAX_OBJECT_DEPTH)
    out.push({
      path,
      rule: 'max_depth',
      message: `objects nest at most ${MAX_OBJECT_DEPTH} deep (OpenAI strict mode)`,
    });
  if (s.additionalProperties !== false)
    out.push({
      path,
      rule: 'closed_object',
      message: 'every object sets "additionalProperties": false (OpenAI strict mode)',
    });
  if (!isSchema(s.properties) || Object.keys(s.properties).length === 0) {
    out.push({
      path,
      rule: 'declared_properties',
      message:
        'an object declares its properties: a free-form object decodes only as {} under a grammar (use an array of {key, value} or a string of JSON)',
    });
    return;
  }
  const required = new Set(Array.isArray(s.required) ? s.required : []);
  for (const [name, sub] of Object.entries(s.properties)) {
    const at = ptr(ptr(path, 'properties'), name);
    if (!required.has(name))
      out.push({
        path: at,
        rule: 'all_required',
        message: `"${name}" is missing from required: every property is required, an optional one nullable (OpenAI strict mode)`,
      });
    if (isSchema(sub)) walk(sub, at, depth, out);
    else out.push({ path: at, rule: 'typed', message: 'a property is a schema object' });
  }
}

/** `anyOf` alternatives: objects told apart by one property holding a one-value enum, or null. */
function checkAlternatives(alts: unknown[], path: string, depth: number, out: StrictViolation[]): void {
  const objects: Schema[] = [];
  alts.forEach((alt, i) => {
    if (!isSchema(alt)) return;
    walk(alt, ptr(path, i), depth, out);
    const t = alt.type;
    if (t === 'object') objects.push(alt);
  });
  if (objects.length < 2) return;
  const tags = objects.map((o) => discriminators(o));
  const shared = [...(tags[0] ?? new Map()).keys()].find((name) => {
    const values = tags.map((m) => m.get(name));
    return values.every((v) => v !== undefined) && new Set(values).size === values.length;
  });
  if (shared === undefined)
    out.push({
      path,
      rule: 'discriminated_alternatives',
      message:
        'object alternatives share one property whose one-value enum tells them apart (a grammar cannot backtrack between look-alike objects)',
    });
}

function discriminators(o: Schema): Map<string, string> {
  const m = new Map<string, string>();
  if (!isSchema(o.properties)) return m;
  for (const [name, sub] of Object.entries(o.properties))
    if (isSchema(sub) && Array.isArray(sub.enum) && sub.enum.length === 1 && typeof sub.enum[0] === 'string')
      m.set(name, sub.enum[0]);
  return m;
}
