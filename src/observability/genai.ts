/**
 * A source invocation as an OpenTelemetry GenAI span: the operation (`chat` for an LLM call,
 * `execute_tool` for a tool call), provider, request and response model, token usage, finish
 * reasons, and the ids of the Noema records. Content (prompts, completions, tool arguments and
 * results) only when capture is on, as the durable trace stores it (redacted).
 */
import type { Attributes } from '@opentelemetry/api';
import type { InvocationFinished } from '../core/telemetry.ts';

export interface InvocationSpanShape {
  name: string;
  kind: 'client' | 'internal';
  attributes: Attributes;
}

/** Hosts of the providers the GenAI conventions name (`gen_ai.provider.name` well-known values). */
const PROVIDER_HOSTS: ReadonlyArray<[RegExp, string]> = [
  [/(^|\.)api\.openai\.com$/, 'openai'],
  [/\.openai\.azure\.com$/, 'azure.ai.openai'],
  [/(^|\.)api\.anthropic\.com$/, 'anthropic'],
  [/(^|\.)generativelanguage\.googleapis\.com$/, 'gcp.gemini'],
  [/(^|\.)aiplatform\.googleapis\.com$/, 'gcp.vertex_ai'],
  [/(^|\.)api\.groq\.com$/, 'groq'],
  [/(^|\.)api\.deepseek\.com$/, 'deepseek'],
  [/(^|\.)api\.mistral\.ai$/, 'mistral_ai'],
  [/(^|\.)api\.x\.ai$/, 'x_ai'],
  [/(^|\.)api\.perplexity\.ai$/, 'perplexity'],
];

/** Noema's provider profiles (NOEMA_LLM_PROVIDER) as GenAI provider names. */
const PROFILE_PROVIDERS: Readonly<Record<string, string>> = {
  openai: 'openai',
  'azure-openai': 'azure.ai.openai',
  anthropic: 'anthropic',
  gemini: 'gcp.gemini',
};

/** Endpoint base URLs seen → their host and the provider it names, if any (a handful per process). */
const hosts = new Map<string, { host: string; known: string | null }>();

function hostOf(baseUrl: unknown): { host: string; known: string | null } {
  if (typeof baseUrl !== 'string') return { host: '', known: null };
  let seen = hosts.get(baseUrl);
  if (!seen) {
    let host = '';
    try {
      host = new URL(baseUrl).hostname;
    } catch {}
    seen = { host, known: PROVIDER_HOSTS.find(([pattern]) => pattern.test(host))?.[1] ?? null };
    if (hosts.size >= 256) hosts.clear();
    hosts.set(baseUrl, seen);
  }
  return seen;
}

/**
 * The provider: from the endpoint's host when it is a known provider's, else from the endpoint's
 * configured profile (NOEMA_LLM_PROVIDER / NOEMA_LLM_<NAME>_PROVIDER), else the host itself.
 */
export function providerName(
  baseUrl: unknown,
  endpoint: unknown,
  env: Readonly<Record<string, string | undefined>>,
): string {
  const { host, known } = hostOf(baseUrl);
  if (known) return known;
  const variable =
    typeof endpoint === 'string' && endpoint !== 'default'
      ? `NOEMA_LLM_${endpoint.toUpperCase().replace(/[^A-Z0-9]/g, '_')}_PROVIDER`
      : 'NOEMA_LLM_PROVIDER';
  const profile = env[variable]?.trim() || env.NOEMA_LLM_PROVIDER?.trim();
  if (profile && profile !== 'generic') return PROFILE_PROVIDERS[profile] ?? profile;
  return host || 'unknown';
}

function scalar(v: unknown): string | number | boolean | undefined {
  return typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))
    ? v
    : undefined;
}

/** The Noema ids an invocation's links carry, as `noema.*` attributes. */
export function noemaIds(inv: InvocationFinished): Attributes {
  const a: Attributes = {
    'noema.source_invocation_id': inv.source_invocation_id,
    'noema.invocation_kind': inv.invocation_kind,
    'noema.source.interface': inv.interface_name,
  };
  const links = inv.links;
  for (const key in links) {
    if (key === 'metadata') continue;
    const v = scalar(links[key]);
    if (v !== undefined) a[noemaKey(key)] = v;
  }
  const metadata = inv.metadata;
  for (let i = 0; i < METADATA_IDS.length; i++) {
    const key = METADATA_IDS[i]![0];
    const as = METADATA_IDS[i]![1];
    const v = scalar(metadata[key]);
    if (v !== undefined) a[as] = v;
  }
  return a;
}

/** The ids a record's metadata may carry, as attributes. */
const METADATA_IDS = ['session_id', 'agent_id', 'flowchart_id', 'world_slug', 'turn'].map(
  (key) => [key, `noema.${key}`] as const,
);

/** `noema.<link>` attribute names, made once per link name (a few dozen exist). */
const noemaKeys = new Map<string, string>();

function noemaKey(key: string): string {
  let name = noemaKeys.get(key);
  if (name === undefined) {
    name = `noema.${key}`;
    if (noemaKeys.size < 1024) noemaKeys.set(key, name);
  }
  return name;
}

interface ChatMessage {
  role?: unknown;
  content?: unknown;
}

/** Chat messages in the GenAI conventions' message shape (`role`, `parts`). */
function inputMessages(request: unknown): unknown[] {
  const messages = (request as { messages?: unknown } | null)?.messages;
  if (!Array.isArray(messages)) return [];
  return messages.map((m: ChatMessage) => ({
    role: m.role,
    parts: [{ type: 'text', content: typeof m.content === 'string' ? m.content : JSON.stringify(m.content) }],
  }));
}

function text(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

export function invocationSpan(
  inv: InvocationFinished,
  captureContent: boolean,
  env: Readonly<Record<string, string | undefined>>,
): InvocationSpanShape {
  const c = inv.columns;
  const a: Attributes = noemaIds(inv);
  if (inv.status !== 'succeeded') a['error.type'] = inv.failure_class ?? inv.status;
  // The name the model called the tool by, else an MCP tool source's own tool.
  const named = inv.links.tool_name ?? (inv.interface_name === 'mcp_tool' ? inv.metadata.tool : null);
  const toolName = typeof named === 'string' ? named : null;
  if (inv.interface_name.startsWith('llm')) {
    const model = scalar(c.llm_model) ?? scalar(inv.metadata.model);
    a['gen_ai.operation.name'] = 'chat';
    a['gen_ai.provider.name'] = providerName(
      c.llm_base_url,
      c.llm_endpoint_name ?? inv.metadata.endpoint,
      env,
    );
    if (model !== undefined) a['gen_ai.request.model'] = String(model);
    const responseModel = scalar(inv.metadata.response_model) ?? model;
    if (responseModel !== undefined && inv.status === 'succeeded')
      a['gen_ai.response.model'] = String(responseModel);
    const input = scalar(c.llm_prompt_tokens);
    const output = scalar(c.llm_completion_tokens);
    if (typeof input === 'number') a['gen_ai.usage.input_tokens'] = input;
    if (typeof output === 'number') a['gen_ai.usage.output_tokens'] = output;
    if (typeof c.llm_finish_reason === 'string') a['gen_ai.response.finish_reasons'] = [c.llm_finish_reason];
    if (typeof c.llm_first_chunk_at === 'number' && c.llm_first_chunk_at >= inv.started_at)
      a['gen_ai.response.time_to_first_chunk'] = (c.llm_first_chunk_at - inv.started_at) / 1000;
    a['gen_ai.output.type'] = 'json';
    if (captureContent) {
      const { request, response } = inv.content();
      a['gen_ai.input.messages'] = JSON.stringify(inputMessages(request));
      a['gen_ai.output.messages'] = JSON.stringify([
        {
          role: 'assistant',
          parts: [{ type: 'text', content: text(response) }],
          ...(typeof c.llm_finish_reason === 'string' ? { finish_reason: c.llm_finish_reason } : {}),
        },
      ]);
    }
    return { name: model === undefined ? 'chat' : `chat ${model}`, kind: 'client', attributes: a };
  }
  if (toolName) {
    a['gen_ai.operation.name'] = 'execute_tool';
    a['gen_ai.tool.name'] = toolName;
    a['gen_ai.tool.type'] = 'function';
    if (captureContent) {
      const { request, response } = inv.content();
      a['gen_ai.tool.call.arguments'] = text(request);
      a['gen_ai.tool.call.result'] = text(response);
    }
    return { name: `execute_tool ${toolName}`, kind: 'internal', attributes: a };
  }
  if (captureContent) {
    const { request, response } = inv.content();
    a['noema.request'] = text(request);
    a['noema.response'] = text(response);
  }
  return { name: `source ${inv.interface_name}`, kind: 'client', attributes: a };
}
