/**
 * Provider profiles: what one OpenAI-compatible client sends to, and reads from, each kind of
 * endpoint. A profile is data, not a fork of the client: the token-limit parameter's name, how a
 * result schema is delivered, whether `stream_options` is sent, where reasoning text arrives, how
 * the key is sent and which models refuse a `temperature`. docs/providers.md is the table, with the
 * providers' own documentation cited; each entry here names its source.
 */

export const PROVIDERS = [
  'generic',
  'openai',
  'azure-openai',
  'anthropic',
  'gemini',
  'openrouter',
  'ollama',
  'vllm',
  'llamacpp',
  'lmstudio',
] as const;

export type ProviderName = (typeof PROVIDERS)[number];

/**
 * How a result schema reaches the model when the source says `"schema_delivery": "response_format"`:
 * `json_schema_strict` is `response_format: { type: "json_schema", json_schema: { name, strict: true,
 * schema } }`; `json_schema` the same without `strict`; `prompt` appends the schema to the prompt
 * (the provider ignores `response_format`, so sending it alone would constrain nothing).
 */
export type SchemaDelivery = 'json_schema_strict' | 'json_schema' | 'prompt';

export interface ProviderProfile {
  name: ProviderName;
  /** The request field that carries the token limit. */
  tokenLimit: 'max_tokens' | 'max_completion_tokens';
  schema: SchemaDelivery;
  /** Whether `stream_options: { include_usage: true }` is sent (the usage arrives in a last chunk). */
  streamOptions: boolean;
  /** The delta fields the reasoning text arrives in, in the order they are read. */
  reasoning: ReadonlyArray<'reasoning_content' | 'reasoning'>;
  /** How the API key is sent: `Authorization: Bearer <key>`, or Azure's `api-key: <key>`. */
  auth: 'bearer' | 'api-key';
  /** Whether `model` accepts a `temperature` (OpenAI's reasoning models refuse any but the default). */
  acceptsTemperature(model: string): boolean;
  /** The highest temperature the provider takes (Anthropic: 1). */
  maxTemperature: number;
  /**
   * What a result schema outside the strict subset becomes (`schema-delivery.ts`): `strict` and
   * `grammar` convert it into the subset (or refuse it, naming the place); `as_written` sends it
   * unchanged (the provider takes any JSON Schema, or reads it in the prompt).
   */
  schemaForm: 'strict' | 'grammar' | 'as_written';
}

/** OpenAI's reasoning models (o1, o3, o4-mini, gpt-5…; not gpt-5-chat): `temperature` is refused. */
const OPENAI_REASONING = /^(?:[^/]*\/)?(?:o\d+(?:-|$)|gpt-5(?!-chat))/i;

const always = () => true;

const base: Omit<ProviderProfile, 'name'> = {
  tokenLimit: 'max_tokens',
  schema: 'json_schema',
  streamOptions: true,
  reasoning: [],
  auth: 'bearer',
  acceptsTemperature: always,
  maxTemperature: 2,
  schemaForm: 'grammar',
};

const PROFILES: Record<ProviderName, ProviderProfile> = {
  // Today's behaviour: json_schema without strict; reasoning read from either field.
  generic: {
    ...base,
    name: 'generic',
    reasoning: ['reasoning_content', 'reasoning'],
    schemaForm: 'as_written',
  },
  // platform.openai.com/docs/api-reference/chat/create: max_tokens is deprecated and not compatible
  // with the o-series; platform.openai.com/docs/guides/structured-outputs: strict json_schema.
  openai: {
    ...base,
    name: 'openai',
    tokenLimit: 'max_completion_tokens',
    schema: 'json_schema_strict',
    schemaForm: 'strict',
    acceptsTemperature: (model) => !OPENAI_REASONING.test(model),
  },
  // learn.microsoft.com/azure/ai-foundry/openai/latest: the v1 API's chat completions, `api-key` header.
  'azure-openai': {
    ...base,
    name: 'azure-openai',
    tokenLimit: 'max_completion_tokens',
    schema: 'json_schema_strict',
    auth: 'api-key',
    schemaForm: 'strict',
    acceptsTemperature: (model) => !OPENAI_REASONING.test(model),
  },
  // docs.anthropic.com/en/api/openai-sdk: response_format is ignored, temperature is capped at 1,
  // max_tokens and stream_options are supported, thinking is not returned.
  anthropic: { ...base, name: 'anthropic', schema: 'prompt', maxTemperature: 1, schemaForm: 'as_written' },
  // ai.google.dev/gemini-api/docs/openai: structured output through response_format json_schema.
  gemini: { ...base, name: 'gemini', schema: 'json_schema_strict', schemaForm: 'strict' },
  // openrouter.ai/docs/api-reference (structured outputs, reasoning tokens): strict json_schema,
  // the reasoning text in `delta.reasoning`.
  openrouter: {
    ...base,
    name: 'openrouter',
    schema: 'json_schema_strict',
    reasoning: ['reasoning'],
    schemaForm: 'strict',
  },
  // docs.ollama.com/api/openai-compatibility: response_format, stream_options.include_usage,
  // max_tokens; a thinking model's text in `reasoning`.
  ollama: { ...base, name: 'ollama', reasoning: ['reasoning'] },
  // docs.vllm.ai/en/latest/features/structured_outputs.html (response_format json_schema) and
  // reasoning_outputs.html (`reasoning_content`, `reasoning` in later releases).
  vllm: { ...base, name: 'vllm', reasoning: ['reasoning', 'reasoning_content'], schemaForm: 'as_written' },
  // github.com/ggml-org/llama.cpp tools/server/README.md: response_format json_schema is compiled to
  // a grammar; `--reasoning-format` puts the thinking in `reasoning_content`.
  llamacpp: { ...base, name: 'llamacpp', reasoning: ['reasoning_content'] },
  // lmstudio.ai/docs/developer/openai-compat: json_schema (no json_object), reasoning_content;
  // stream_options is not among its documented fields.
  lmstudio: { ...base, name: 'lmstudio', streamOptions: false, reasoning: ['reasoning_content'] },
};

export function isProviderName(value: string): value is ProviderName {
  return (PROVIDERS as readonly string[]).includes(value);
}

export function providerProfile(name: ProviderName): ProviderProfile {
  return PROFILES[name];
}
