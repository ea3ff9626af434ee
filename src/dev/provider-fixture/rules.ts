/**
 * The published request rules the provider fixture enforces, per profile: what each provider
 * refuses with a 400 (docs/providers.md cites where each rule is written down).
 */
import type { ProviderName } from '../../sources/index.ts';

export interface Refusal {
  message: string;
  code: string | null;
  param: string | null;
}

const REASONING_MODEL = /^(?:o\d+(?:-|$)|gpt-5(?!-chat))/i;

/** Why `body` breaks `profile`'s rules, or null when it keeps them. */
export function refusalOf(profile: ProviderName, body: Record<string, unknown>): Refusal | null {
  const model = typeof body.model === 'string' ? body.model : '';
  if (!model) return { message: 'you must provide a model parameter', code: null, param: 'model' };
  if (!Array.isArray(body.messages) || body.messages.length === 0)
    return { message: "'messages' must contain at least one message", code: null, param: 'messages' };
  if (profile === 'openai' || profile === 'azure-openai') {
    if (REASONING_MODEL.test(model)) {
      if (body.max_tokens !== undefined)
        return {
          message:
            "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
          code: 'unsupported_parameter',
          param: 'max_tokens',
        };
      if (body.temperature !== undefined && body.temperature !== 1)
        return {
          message: `Unsupported value: 'temperature' does not support ${body.temperature} with this model. Only the default (1) value is supported.`,
          code: 'unsupported_value',
          param: 'temperature',
        };
    }
    const format = body.response_format as
      | { type?: string; json_schema?: { name?: string; strict?: boolean; schema?: unknown } }
      | undefined;
    if (format?.type === 'json_schema' && format.json_schema?.strict === true) {
      const problem = strictProblem(format.json_schema.schema, []);
      if (problem)
        return {
          message: `Invalid schema for response_format '${format.json_schema.name ?? ''}': ${problem}`,
          code: null,
          param: 'response_format',
        };
    }
  }
  if (profile === 'anthropic' && body.n !== undefined && body.n !== 1)
    return { message: 'n: only n=1 is supported', code: null, param: 'n' };
  if (profile === 'lmstudio') {
    const type = (body.response_format as { type?: string } | undefined)?.type;
    if (type !== undefined && type !== 'json_schema' && type !== 'text')
      return {
        message: "'response_format.type' must be 'json_schema' or 'text'",
        code: null,
        param: 'response_format',
      };
  }
  return null;
}

/**
 * Where a strict schema leaves OpenAI's structured-outputs subset: every object must set
 * `additionalProperties: false` and list every property in `required`; the root must be an object.
 */
export function strictProblem(schema: unknown, path: string[]): string | null {
  if (!schema || typeof schema !== 'object') return null;
  const s = schema as Record<string, unknown>;
  const context = `In context=(${path.map((p) => `'${p}'`).join(', ')}${path.length === 1 ? ',' : ''})`;
  if (path.length === 0 && s.type !== 'object')
    return `${context}, schema must be a JSON Schema of 'type: "object"', got 'type: "${String(s.type)}"'.`;
  if (s.type === 'object' || s.properties) {
    if (s.additionalProperties !== false)
      return `${context}, 'additionalProperties' is required to be supplied and to be false.`;
    const props = Object.keys((s.properties ?? {}) as object);
    const required = Array.isArray(s.required) ? (s.required as string[]) : [];
    const missing = props.find((p) => !required.includes(p));
    if (missing !== undefined)
      return `${context}, 'required' is required to be supplied and to be an array including every key in properties. Missing '${missing}'.`;
    for (const p of props) {
      const inner = strictProblem((s.properties as Record<string, unknown>)[p], [...path, 'properties', p]);
      if (inner) return inner;
    }
  }
  for (const key of ['items', 'anyOf', '$defs', 'definitions'] as const) {
    const v = s[key];
    if (Array.isArray(v)) {
      for (const [i, item] of v.entries()) {
        const inner = strictProblem(item, [...path, key, String(i)]);
        if (inner) return inner;
      }
    } else if (v && typeof v === 'object') {
      const entries = key === 'items' ? [['', v] as const] : Object.entries(v);
      for (const [k, item] of entries) {
        const inner = strictProblem(item, k ? [...path, key, k] : [...path, key]);
        if (inner) return inner;
      }
    }
  }
  return null;
}
