/**
 * Structural equivalence to the WorldPatch schema (seed 004 assembly: the final schema "is the
 * WorldPatch schema or structurally equivalent to it"). Two schemas are equivalent when their
 * normal forms are equal: annotation keywords dropped (they never change what validates), the
 * 2020-12 `$schema` (the default dialect) dropped, `required` sorted, then canonical JSON. Anything
 * else — another keyword, bound or property — may accept a document that is not a WorldPatch.
 */
import { canonicalJson } from '../../core/index.ts';
import { WORLD_PATCH_SCHEMA } from './world-patch.ts';

/** Keywords that annotate and never assert (JSON Schema 2020-12 meta-data vocabulary, `$comment`). */
const ANNOTATIONS = new Set([
  'title',
  'description',
  'examples',
  '$comment',
  'default',
  'deprecated',
  'readOnly',
  'writeOnly',
]);

const DEFAULT_DIALECT = new Set([
  'https://json-schema.org/draft/2020-12/schema',
  'https://json-schema.org/draft/2020-12/schema#',
]);

/** Keywords whose value is a map of names to subschemas (the names are data, never keywords). */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
/** Keywords whose value is one subschema, or (`items` of older drafts) a list of them. */
const SCHEMA_ONE = new Set([
  'items',
  'additionalItems',
  'additionalProperties',
  'unevaluatedItems',
  'unevaluatedProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
]);
const SCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A schema's normal form: what it validates, without what only describes it. */
export function schemaNormalForm(schema: unknown): unknown {
  if (!isObj(schema)) return schema;
  const out: Obj = {};
  for (const [k, v] of Object.entries(schema)) {
    if (ANNOTATIONS.has(k)) continue;
    if (k === '$schema' && typeof v === 'string' && DEFAULT_DIALECT.has(v)) continue;
    if (SCHEMA_MAPS.has(k) && isObj(v))
      out[k] = Object.fromEntries(Object.entries(v).map(([name, s]) => [name, schemaNormalForm(s)]));
    else if ((SCHEMA_LISTS.has(k) || SCHEMA_ONE.has(k)) && Array.isArray(v)) out[k] = v.map(schemaNormalForm);
    else if (SCHEMA_ONE.has(k)) out[k] = schemaNormalForm(v);
    else if (k === 'required' && Array.isArray(v)) out[k] = [...new Set(v)].sort();
    // Any other keyword's value is data (`const`, `enum`, bounds, `type`) and is compared as is.
    else out[k] = v;
  }
  return out;
}

/** The JSON pointer (in the normal forms) where `a` and `b` first differ; null when equal. */
function firstDifference(a: unknown, b: unknown, path = ''): string | null {
  if (a === undefined || b === undefined) return a === b ? null : path || '/';
  if (canonicalJson(a) === canonicalJson(b)) return null;
  if (isObj(a) && isObj(b)) {
    for (const k of [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()) {
      const d = firstDifference(a[k], b[k], `${path}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`);
      if (d !== null) return d;
    }
  }
  if (Array.isArray(a) && Array.isArray(b) && a.length === b.length)
    for (let i = 0; i < a.length; i++) {
      const d = firstDifference(a[i], b[i], `${path}/${i}`);
      if (d !== null) return d;
    }
  return path || '/';
}

const WORLD_PATCH_NORMAL = schemaNormalForm(WORLD_PATCH_SCHEMA);

/**
 * Null when `schema` is structurally equivalent to the WorldPatch schema; else the JSON pointer of
 * its first difference (in the normal form, where annotations are gone).
 */
export function worldPatchDifference(schema: unknown): string | null {
  return firstDifference(schemaNormalForm(schema), WORLD_PATCH_NORMAL);
}
