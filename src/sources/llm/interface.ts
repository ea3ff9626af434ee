/**
 * The `llm_chat_completions` interface and its endpoint configuration. The definition names a
 * model and how the result schema reaches it; where to send and with which key comes only from
 * the operator's environment (`NOEMA_LLM_BASE_URL`, `NOEMA_LLM_API_KEY`, or a named endpoint).
 */
import { notConfigured, SourceFailure } from '../failure.ts';
import { type ProviderProfile, providerProfile } from './providers.ts';
import { readProvider, readTokenLimit, type Setting } from './settings.ts';

export interface LlmInterface {
  name: 'llm_chat_completions';
  /** A model name, or `@alias` resolved from the environment (see `resolveEndpoint`). */
  model: string;
  schema_delivery: 'response_format' | 'prompt_only';
  /** Named endpoint; omitted means the default one (`NOEMA_LLM_*`). */
  endpoint?: string;
  timeout_ms?: number;
  temperature?: number;
  max_tokens?: number;
}

export const llmInterfaceSchema = {
  type: 'object',
  required: ['name', 'model', 'schema_delivery'],
  additionalProperties: false,
  properties: {
    name: { const: 'llm_chat_completions' },
    model: { type: 'string', minLength: 1, maxLength: 200 },
    schema_delivery: { enum: ['response_format', 'prompt_only'] },
    endpoint: { type: 'string', pattern: '^[a-z][a-z0-9_]{0,63}$' },
    timeout_ms: { type: 'integer', minimum: 1, maximum: 3600000 },
    temperature: { type: 'number', minimum: 0, maximum: 2 },
    max_tokens: { type: 'integer', minimum: 1, maximum: 10_000_000 },
  },
} as const;

export const DEFAULT_LLM_TIMEOUT_MS = 120_000;

export interface LlmEndpoint {
  name: string;
  baseUrl: string;
  apiKey: string | undefined;
  model: string;
  timeoutMs: number;
  /** What is sent and read (`NOEMA_LLM_PROVIDER` / `NOEMA_LLM_<NAME>_PROVIDER`; default `generic`). */
  provider: ProviderProfile;
  /**
   * The token limit for sources that set none: the endpoint's `…_MAX_TOKENS`, else
   * `NOEMA_LLM_MAX_TOKENS`; undefined when neither is set.
   */
  maxTokens: number | undefined;
}

type Env = Readonly<Record<string, string | undefined>>;

function envPrefix(endpoint: string): string {
  return endpoint === 'default' ? 'NOEMA_LLM_' : `NOEMA_LLM_${endpoint.toUpperCase()}_`;
}

/**
 * Resolves where a call goes. `endpoint` "default" reads NOEMA_LLM_BASE_URL / _API_KEY /
 * _MODEL / _TIMEOUT_MS; endpoint "x" reads NOEMA_LLM_X_BASE_URL and so on. A model `@alias`
 * is NOEMA_LLM_MODEL_<ALIAS> when set, else the endpoint's model variable.
 */
export function resolveEndpoint(iface: LlmInterface, env: Env): LlmEndpoint {
  const name = iface.endpoint ?? 'default';
  const prefix = envPrefix(name);
  const baseUrl = env[`${prefix}BASE_URL`];
  if (!baseUrl) throw notConfigured(`${prefix}BASE_URL`, `LLM endpoint "${name}" base URL`);
  try {
    const u = new URL(baseUrl);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('scheme');
  } catch {
    throw new SourceFailure('not_configured', `${prefix}BASE_URL must be an http:// or https:// URL`, {
      details: { variable: `${prefix}BASE_URL` },
    });
  }
  let model = iface.model;
  if (model.startsWith('@')) {
    const aliasVar = `NOEMA_LLM_MODEL_${model
      .slice(1)
      .toUpperCase()
      .replace(/[^A-Z0-9]/g, '_')}`;
    const resolved = env[aliasVar] || env[`${prefix}MODEL`];
    if (!resolved) throw notConfigured(`${prefix}MODEL`, `model alias ${model} (or ${aliasVar})`);
    model = resolved;
  }
  const envTimeout = Number(env[`${prefix}TIMEOUT_MS`]);
  const timeoutMs =
    iface.timeout_ms ??
    (Number.isInteger(envTimeout) && envTimeout > 0 ? envTimeout : DEFAULT_LLM_TIMEOUT_MS);
  const provider = setting(readProvider(env, `${prefix}PROVIDER`), `${prefix}PROVIDER`);
  const maxTokens =
    setting(readTokenLimit(env, `${prefix}MAX_TOKENS`), `${prefix}MAX_TOKENS`) ??
    setting(readTokenLimit(env, 'NOEMA_LLM_MAX_TOKENS'), 'NOEMA_LLM_MAX_TOKENS');
  return {
    name,
    baseUrl: baseUrl.replace(/\/+$/, ''),
    apiKey: env[`${prefix}API_KEY`] || undefined,
    model,
    timeoutMs,
    provider: providerProfile(provider),
    maxTokens,
  };
}

function setting<T>(r: Setting<T>, variable: string): T {
  if (r.ok) return r.value;
  throw new SourceFailure('not_configured', r.message, {
    details: { variable },
    hint: `correct ${variable} in the environment of the Noema process`,
  });
}
