/**
 * Scripted replies in the shape a model sends under a strict-subset schema: a contract-shaped value
 * with every absent optional property sent as null, free-form values as strings of JSON and maps as
 * `{key, value}` pairs (the inverse of `fromStrictDelivery`).
 */
import { validateCompiled } from '../core/compiled-validators.ts';
import type { JsonSchema } from '../core/schema-registry.ts';
import { REASONING_REPLY_SCHEMA } from '../runtimes/agent/reply-schema.ts';

type Schema = Record<string, unknown>;
const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);
const typesOf = (s: Schema): string[] =>
  Array.isArray(s.type) ? (s.type as string[]) : typeof s.type === 'string' ? [s.type] : [];

/** `value` (matching `schema`) as a model answers it under `toStrictDelivery(schema)`. */
export function deliveredReply(value: unknown, schema: JsonSchema): unknown {
  if (!isSchema(schema)) return JSON.stringify(value);
  const alts = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined;
  if (Array.isArray(alts)) {
    const alt = alts.find((a) => validateCompiled(a, value).ok);
    return alt === undefined ? value : deliveredReply(value, alt);
  }
  const types = typesOf(schema);
  if (value === null) return null;
  if (types.length === 0 && schema.enum === undefined && schema.const === undefined)
    return JSON.stringify(value);
  if (types.includes('object') && isSchema(value)) {
    if (isSchema(schema.properties)) {
      const out: Record<string, unknown> = {};
      for (const [name, sub] of Object.entries(schema.properties))
        out[name] = name in value ? deliveredReply(value[name], sub as JsonSchema) : null;
      return out;
    }
    if (isSchema(schema.additionalProperties))
      return Object.entries(value).map(([key, v]) => ({
        key,
        value: deliveredReply(v, schema.additionalProperties as Schema),
      }));
    return JSON.stringify(value);
  }
  if (types.includes('array') && Array.isArray(value))
    return value.map((v) => deliveredReply(v, (schema.items ?? true) as JsonSchema));
  return value;
}

/** A ReasoningNode reply as the model sends it: `{ thinking, response }` fills in the rest. */
export const reasoningReply = (reply: Record<string, unknown>) =>
  deliveredReply(reply, REASONING_REPLY_SCHEMA);
