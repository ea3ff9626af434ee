/**
 * `noema llm check`: what an endpoint can do, probed as its provider profile sends it — the model
 * listed on `GET /models`, a streamed reply, usage reported, the profile's structured-output delivery
 * honoured with a strict schema, the latency of a short call (first token and total). Each
 * capability is one line; a failed one names its failure class and what to set. Nothing is stored:
 * a check is not a source invocation.
 */
import { validateCompiled } from '../../core/compiled-validators.ts';
import { SourceFailure, transportFailure } from '../failure.ts';
import { tryParseJson } from '../http-json/read-body.ts';
import { sendHttp } from '../http-transport.ts';
import { createRedactor, secretsFromEnv } from '../redact.ts';
import type { FailureClass } from '../source.ts';
import { listModels } from './check-models.ts';
import { type LlmEndpoint, resolveEndpoint } from './interface.ts';
import { endedBadly, truncated, upstreamFailure } from './outcome.ts';
import { buildChatBody, normalizeAssistantText } from './request.ts';
import { newStreamState, readCompletionStream, type StreamState } from './stream.ts';
import { type CallTokens, tokensOf } from './usage.ts';

type Env = Readonly<Record<string, string | undefined>>;

export const CAPABILITIES = ['model_listed', 'streaming', 'usage', 'structured_output', 'latency'] as const;
export type Capability = (typeof CAPABILITIES)[number];

/** Why a capability failed: the call's failure class, or what the check itself saw. */
export type CheckProblem = FailureClass | 'model_not_listed' | 'not_streamed' | 'usage_not_reported';

export interface CapabilityLine {
  capability: Capability;
  /** `skipped` when an earlier failure left nothing to judge (the call failed before any reply). */
  status: 'ok' | 'failed' | 'skipped';
  detail: string;
  problem?: CheckProblem;
  /** What to set or do about it, naming the endpoint's own variables. */
  fix?: string;
}

export interface LlmCheckReport {
  /** Every capability ok (or skipped with none failed). */
  ok: boolean;
  endpoint: string;
  provider: string | null;
  base_url: string | null;
  model: string | null;
  /** What the profile sent: the token-limit field, the schema delivery, stream_options. */
  sent: { token_limit: string; schema: string; stream_options: boolean } | null;
  capabilities: CapabilityLine[];
  http_status: number | null;
  /** Time to the first streamed text (content or reasoning), from the call's start; null when none came. */
  first_token_ms: number | null;
  duration_ms: number;
  finish_reason: string | null;
  reply: unknown;
  tokens: CallTokens | null;
  reasoning: boolean;
  /** The call's failure, when it failed (the first failed capability's otherwise). */
  failure_class?: CheckProblem;
  message?: string;
  hint?: string;
}

/** The check's result schema: inside OpenAI's strict subset, so every profile can send it. */
const SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['ok'],
  properties: { ok: { type: 'boolean' } },
};

/** A reasoning model spends tokens before it answers: the check's limit when the endpoint sets none. */
const CHECK_TOKENS = 1024;

const prefixOf = (endpoint: string) =>
  endpoint === 'default' ? 'NOEMA_LLM_' : `NOEMA_LLM_${endpoint.toUpperCase()}_`;

/** What to set for a failure class, in the endpoint's own variables. */
function fixFor(problem: CheckProblem, endpoint: string, provider: string | null, ids: string[]): string {
  const p = prefixOf(endpoint);
  switch (problem) {
    case 'auth':
      return `set ${p}API_KEY to a key this provider accepts (and ${p}PROVIDER to the provider it is: the key is sent as its profile says)`;
    case 'model_not_found':
    case 'model_not_listed':
      return `set ${p}MODEL (or --model) to a model the endpoint serves${ids.length > 0 ? `: ${ids.slice(0, 5).join(', ')}` : ''}`;
    case 'not_configured':
      return `set ${p}BASE_URL (and ${p}MODEL, ${p}PROVIDER)`;
    case 'network':
      return `check ${p}BASE_URL: nothing answered there`;
    case 'timeout':
      return `raise ${p}TIMEOUT_MS, or check the server is not stuck loading the model`;
    case 'http_status':
      return `check ${p}BASE_URL ends where the provider's OpenAI-compatible API starts (Noema appends /chat/completions)`;
    case 'response_format_rejected':
    case 'non_json':
    case 'schema_invalid':
      return `set ${p}PROVIDER to the provider this endpoint is (now ${provider ?? 'generic'}): it decides how the schema is delivered`;
    case 'usage_not_reported':
      return provider === 'lmstudio'
        ? 'LM Studio sends no usage on some versions when streaming: tokens and cost are recorded as not reported'
        : `set ${p}PROVIDER to the provider this endpoint is (now ${provider ?? 'generic'}); without usage, tokens and cost are recorded as not reported`;
    case 'not_streamed':
      return 'the endpoint answered one JSON body instead of a stream: Noema reads it, but shows no progress and no first-token latency';
    case 'truncated':
      return `raise ${p}MAX_TOKENS (or NOEMA_LLM_MAX_TOKENS)`;
    case 'rate_limited':
      return 'wait and check again; the retry lane honours Retry-After within its budget';
    case 'context_length_exceeded':
      return "raise the server's context size (llama-server -c, Ollama num_ctx)";
    default:
      return `see docs/providers.md for the failure class ${problem}`;
  }
}

/** Offset of the first event carrying text (content or reasoning), or null. */
function firstTokenMs(state: StreamState): number | null {
  for (const c of state.chunks) {
    const parsed = tryParseJson(c.data);
    if (!parsed.ok) continue;
    const choice = (parsed.value as { choices?: Array<{ delta?: Record<string, unknown> }> }).choices?.[0];
    const d = choice?.delta;
    if (d && ['content', ...state.reasoningFields].some((k) => typeof d[k] === 'string' && d[k] !== ''))
      return c.offset_ms;
  }
  return null;
}

export async function checkLlmEndpoint(
  env: Env,
  options: { endpoint?: string; model?: string } = {},
): Promise<LlmCheckReport> {
  const endpointName = options.endpoint ?? 'default';
  const started = Date.now();
  const redactor = createRedactor(secretsFromEnv(env));
  const report: LlmCheckReport = {
    ok: false,
    endpoint: endpointName,
    provider: null,
    base_url: null,
    model: null,
    sent: null,
    capabilities: [],
    http_status: null,
    first_token_ms: null,
    duration_ms: 0,
    finish_reason: null,
    reply: null,
    tokens: null,
    reasoning: false,
  };
  let ids: string[] = [];
  const line = (l: CapabilityLine) => {
    if (l.problem && !l.fix) l.fix = fixFor(l.problem, endpointName, report.provider, ids);
    l.detail = redactor.text(l.detail);
    report.capabilities.push(l);
  };
  const skipRest = (why: string) => {
    for (const c of CAPABILITIES)
      if (!report.capabilities.some((l) => l.capability === c))
        line({ capability: c, status: 'skipped', detail: why });
  };
  const finish = (): LlmCheckReport => {
    report.duration_ms = Date.now() - started;
    const order = (c: Capability) => CAPABILITIES.indexOf(c);
    report.capabilities.sort((a, b) => order(a.capability) - order(b.capability));
    const failures = report.capabilities.filter((l) => l.status === 'failed');
    report.ok = failures.length === 0 && report.failure_class === undefined;
    // The call's own failure names the report's class, else the first capability that failed.
    const failed =
      failures.find((l) => l.capability === 'streaming' || l.capability === 'structured_output') ??
      failures[0];
    if (failed && report.failure_class === undefined) {
      report.failure_class = failed.problem;
      report.message = failed.detail;
      if (failed.fix) report.hint = failed.fix;
    }
    return report;
  };

  const iface = {
    name: 'llm_chat_completions' as const,
    // The endpoint's model (`…_MODEL`) unless one is named.
    model: options.model ?? '@check',
    schema_delivery: 'response_format' as const,
    ...(endpointName === 'default' ? {} : { endpoint: endpointName }),
  };
  let endpoint: LlmEndpoint;
  try {
    endpoint = resolveEndpoint(iface, env);
  } catch (err) {
    const f = err instanceof SourceFailure ? err : new SourceFailure('internal', String(err));
    report.failure_class = f.failureClass;
    report.message = redactor.text(f.message);
    report.hint = f.hint ?? fixFor(f.failureClass, endpointName, null, []);
    skipRest('the endpoint is not configured');
    return finish();
  }
  const profile = endpoint.provider;
  report.provider = profile.name;
  report.base_url = endpoint.baseUrl;
  report.model = endpoint.model;
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (endpoint.apiKey) {
    if (profile.auth === 'api-key') headers['api-key'] = endpoint.apiKey;
    else headers.authorization = `Bearer ${endpoint.apiKey}`;
  }
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), endpoint.timeoutMs);
  try {
    const listing = await listModels(endpoint, headers, controller.signal);
    ids = listing.ids;
    if (listing.outcome === 'listed')
      line({ capability: 'model_listed', status: 'ok', detail: listing.message });
    else if (listing.outcome === 'not_listed')
      // Azure lists base models, not the deployment names its calls take.
      line(
        profile.name === 'azure-openai'
          ? {
              capability: 'model_listed',
              status: 'skipped',
              detail: `${listing.message} (Azure lists base models, not deployments)`,
            }
          : {
              capability: 'model_listed',
              status: 'failed',
              detail: listing.message,
              problem: 'model_not_listed',
            },
      );
    else if (listing.outcome === 'auth')
      line({ capability: 'model_listed', status: 'failed', detail: listing.message, problem: 'auth' });
    else if (listing.outcome === 'unreachable')
      line({ capability: 'model_listed', status: 'failed', detail: listing.message, problem: 'network' });
    else line({ capability: 'model_listed', status: 'skipped', detail: listing.message });

    await probeCall(endpoint, iface, headers, controller.signal, started, report, line, redactor);
  } finally {
    clearTimeout(timer);
  }
  skipRest('the call failed before a reply');
  return finish();
}

async function probeCall(
  endpoint: LlmEndpoint,
  iface: Parameters<typeof buildChatBody>[0],
  baseHeaders: Record<string, string>,
  signal: AbortSignal,
  started: number,
  report: LlmCheckReport,
  line: (l: CapabilityLine) => void,
  redactor: ReturnType<typeof createRedactor>,
): Promise<void> {
  const profile = endpoint.provider;
  const { body } = buildChatBody(
    iface,
    { ...endpoint, maxTokens: endpoint.maxTokens ?? CHECK_TOKENS },
    {
      messages: [
        {
          role: 'system',
          content: 'You are checking a connection. Reply with the JSON object {"ok": true}.',
        },
        { role: 'user', content: 'Is the connection working?' },
      ],
      schema_name: 'noema_check',
    },
    SCHEMA,
  );
  report.sent = {
    token_limit: profile.tokenLimit,
    schema: profile.schema,
    stream_options: body.stream_options !== undefined,
  };
  const what = `LLM call to ${endpoint.name} endpoint (${endpoint.model})`;
  const state = newStreamState();
  state.reasoningFields = profile.reasoning;
  const callStarted = Date.now();
  let streamed = false;
  try {
    const res = await sendHttp(`${endpoint.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { ...baseHeaders, accept: 'text/event-stream' },
      body: JSON.stringify(body),
      signal,
    });
    report.http_status = res.status;
    if (!res.ok) throw await upstreamFailure(res, {}, true, what, []);
    streamed = (res.header('content-type') ?? '').includes('text/event-stream');
    await readCompletionStream(res, state, callStarted);
  } catch (err) {
    const f = transportFailure(err, { timedOut: signal.aborted, cancelled: false, what });
    // A refused schema delivery is the structured-output line's failure: no stream was begun to judge.
    if (f.failureClass === 'response_format_rejected') {
      line({
        capability: 'streaming',
        status: 'skipped',
        detail: 'the call was refused before a stream began',
      });
      line({ capability: 'structured_output', status: 'failed', detail: f.message, problem: f.failureClass });
      return;
    }
    line({ capability: 'streaming', status: 'failed', detail: f.message, problem: f.failureClass });
    return;
  }
  report.duration_ms = Date.now() - started;
  report.finish_reason = state.finishReason;
  report.tokens = tokensOf(state.usage);
  report.reasoning = state.reasoningText !== '';
  report.first_token_ms = streamed ? firstTokenMs(state) : null;
  const total = Date.now() - callStarted;
  line(
    streamed
      ? { capability: 'streaming', status: 'ok', detail: `${state.chunks.length} events` }
      : {
          capability: 'streaming',
          status: 'failed',
          detail: 'answered one JSON body, not an event stream',
          problem: 'not_streamed',
        },
  );
  line({
    capability: 'latency',
    status: 'ok',
    detail: `first token ${report.first_token_ms === null ? 'not seen' : `${report.first_token_ms} ms`}, total ${total} ms`,
  });
  if (state.usage === null)
    line({
      capability: 'usage',
      status: 'failed',
      detail: report.sent.stream_options
        ? 'no usage in the stream, though stream_options.include_usage was sent'
        : 'no usage in the stream (this profile sends no stream_options)',
      problem: 'usage_not_reported',
    });
  else {
    const t = report.tokens;
    const said = (['input', 'output', 'cached', 'reasoning'] as const).map(
      (k) => `${k} ${t[k] ?? 'not reported'}`,
    );
    line({ capability: 'usage', status: 'ok', detail: said.join(', ') });
  }
  line(structuredLine(state, body, profile.tokenLimit, report, (v) => redactor.json(v)));
}

function structuredLine(
  state: StreamState,
  body: Record<string, unknown>,
  tokenLimit: string,
  report: LlmCheckReport,
  redact: (v: unknown) => unknown,
): CapabilityLine {
  const failed = (f: SourceFailure): CapabilityLine => {
    return { capability: 'structured_output', status: 'failed', detail: f.message, problem: f.failureClass };
  };
  const ended = endedBadly(state, {}, []);
  if (ended) return failed(ended);
  const parsed = tryParseJson(normalizeAssistantText(state.rawText));
  if (!parsed.ok) {
    if (state.finishReason === 'length')
      return failed(truncated(state, body[tokenLimit] as number | undefined, parsed.error, {}));
    return failed(new SourceFailure('non_json', `the model's reply is not JSON (${parsed.error})`));
  }
  const valid = validateCompiled(SCHEMA, parsed.value);
  if (!valid.ok)
    return failed(
      new SourceFailure(
        'schema_invalid',
        `the reply does not match the schema sent: ${valid.errors.map((e) => `${e.path || '/'} ${e.message}`).join('; ')}`,
      ),
    );
  report.reply = redact(parsed.value);
  return {
    capability: 'structured_output',
    status: 'ok',
    detail: `${report.sent?.schema ?? 'schema'} honoured: ${JSON.stringify(parsed.value)} (finish_reason ${state.finishReason ?? 'none'})`,
  };
}
