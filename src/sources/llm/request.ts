/**
 * Builds the Chat Completions request body from the caller's request and the source's schema
 * delivery: `response_format: json_schema` when the definition says so, a schema instruction
 * in the prompt only when the definition says `prompt_only`. Nothing switches silently.
 */

import { validateCompiled } from '../../core/compiled-validators.ts';
import { invalidInput } from '../../core/errors.ts';
import type { JsonSchema } from '../../core/schema-registry.ts';
import type { LlmEndpoint, LlmInterface } from './interface.ts';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'developer';
  content: string;
  name?: string;
}

export interface LlmRequest {
  messages: ChatMessage[];
  temperature?: number;
  max_tokens?: number;
  top_p?: number;
  seed?: number;
  stop?: string[];
  /** Names the schema in `response_format.json_schema.name` (default `noema_result`). */
  schema_name?: string;
}

const LLM_REQUEST_SCHEMA = {
  type: 'object',
  required: ['messages'],
  additionalProperties: false,
  properties: {
    messages: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['role', 'content'],
        additionalProperties: false,
        properties: {
          role: { enum: ['system', 'user', 'assistant', 'developer'] },
          content: { type: 'string' },
          name: { type: 'string' },
        },
      },
    },
    temperature: { type: 'number', minimum: 0, maximum: 2 },
    max_tokens: { type: 'integer', minimum: 1, maximum: 10_000_000 },
    top_p: { type: 'number' },
    seed: { type: 'integer' },
    stop: { type: 'array', items: { type: 'string' }, maxItems: 4 },
    schema_name: { type: 'string', pattern: '^[a-zA-Z0-9_-]{1,64}$' },
  },
} as const;

export function parseLlmRequest(request: unknown): LlmRequest {
  const r = validateCompiled<LlmRequest>(LLM_REQUEST_SCHEMA, request);
  if (!r.ok) {
    throw invalidInput(
      'LLM source request is invalid',
      { errors: r.errors },
      'send { "messages": [{ "role", "content" }] }',
    );
  }
  return r.value;
}

export function promptOnlyInstruction(schema: JsonSchema): string {
  return (
    'Reply with exactly one JSON value and nothing else (no prose, no code fences). ' +
    `It must validate against this JSON Schema:\n${JSON.stringify(schema)}`
  );
}

/**
 * The wire body for `endpoint`'s provider profile: the token limit under the profile's parameter
 * name (the request's, else the source's, else the endpoint's default), the temperature only where
 * the model accepts one (capped at the provider's maximum), the schema as the profile delivers it.
 * `max_tokens` is the limit sent (or undefined): what a cut-off reply is reported against.
 */
export function buildChatBody(
  iface: LlmInterface,
  endpoint: Pick<LlmEndpoint, 'model' | 'provider' | 'maxTokens'>,
  req: LlmRequest,
  schema: JsonSchema | null,
): { body: Record<string, unknown>; messages: ChatMessage[]; max_tokens: number | undefined } {
  const profile = endpoint.provider;
  const inPrompt =
    schema !== null &&
    (iface.schema_delivery === 'prompt_only' ||
      (profile.schema === 'prompt' && iface.schema_delivery === 'response_format'));
  const messages = inPrompt
    ? [...req.messages, { role: 'system' as const, content: promptOnlyInstruction(schema) }]
    : req.messages;
  const body: Record<string, unknown> = { model: endpoint.model, messages, stream: true };
  if (profile.streamOptions) body.stream_options = { include_usage: true };
  const temperature = req.temperature ?? iface.temperature;
  if (temperature !== undefined && profile.acceptsTemperature(endpoint.model)) {
    body.temperature = Math.min(temperature, profile.maxTemperature);
  }
  const maxTokens = req.max_tokens ?? iface.max_tokens ?? endpoint.maxTokens;
  if (maxTokens !== undefined) body[profile.tokenLimit] = maxTokens;
  for (const k of ['top_p', 'seed', 'stop'] as const) if (req[k] !== undefined) body[k] = req[k];
  if (schema && iface.schema_delivery === 'response_format' && profile.schema !== 'prompt') {
    const name = req.schema_name ?? 'noema_result';
    body.response_format = {
      type: 'json_schema',
      json_schema:
        profile.schema === 'json_schema_strict' ? { name, strict: true, schema } : { name, schema },
    };
  }
  return { body, messages, max_tokens: maxTokens };
}

/** The assistant text as the parser sees it: trimmed, without a surrounding Markdown code fence. */
export function normalizeAssistantText(raw: string): string {
  const t = raw.trim();
  const fence = /^```(?:json|JSON)?\s*\n?([\s\S]*?)\n?```$/.exec(t);
  return (fence ? fence[1]! : t).trim();
}
