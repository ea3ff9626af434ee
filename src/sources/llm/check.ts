/**
 * `noema llm check`: one small structured call to an endpoint, as its provider profile sends it,
 * and what came back — whether the endpoint, key, model and schema delivery work, which failure
 * class it answered otherwise, which usage it reports, whether reasoning text arrived. Nothing is
 * stored: a check is not a source invocation.
 */
import { SourceFailure, transportFailure } from '../failure.ts';
import { tryParseJson } from '../http-json/read-body.ts';
import { sendHttp } from '../http-transport.ts';
import { createRedactor, secretsFromEnv } from '../redact.ts';
import type { FailureClass } from '../source.ts';
import { type LlmEndpoint, resolveEndpoint } from './interface.ts';
import { endedBadly, truncated, upstreamFailure } from './outcome.ts';
import { buildChatBody, normalizeAssistantText } from './request.ts';
import { newStreamState, readCompletionStream } from './stream.ts';
import { type CallTokens, tokensOf } from './usage.ts';

type Env = Readonly<Record<string, string | undefined>>;

export interface LlmCheckReport {
  ok: boolean;
  endpoint: string;
  provider: string | null;
  base_url: string | null;
  model: string | null;
  /** What the profile sent: the token-limit field, the schema delivery, stream_options. */
  sent: { token_limit: string; schema: string; stream_options: boolean } | null;
  http_status: number | null;
  duration_ms: number;
  finish_reason: string | null;
  reply: unknown;
  tokens: CallTokens | null;
  reasoning: boolean;
  failure_class?: FailureClass;
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
    http_status: null,
    duration_ms: 0,
    finish_reason: null,
    reply: null,
    tokens: null,
    reasoning: false,
  };
  const fail = (err: unknown): LlmCheckReport => {
    const f = err instanceof SourceFailure ? err : new SourceFailure('internal', String(err));
    report.failure_class = f.failureClass;
    report.message = redactor.text(f.message);
    if (f.hint) report.hint = f.hint;
    report.duration_ms = Date.now() - started;
    return report;
  };
  let endpoint: LlmEndpoint;
  try {
    const iface = {
      name: 'llm_chat_completions' as const,
      // The endpoint's model (`…_MODEL`) unless one is named.
      model: options.model ?? '@check',
      schema_delivery: 'response_format' as const,
      ...(endpointName === 'default' ? {} : { endpoint: endpointName }),
    };
    endpoint = resolveEndpoint(iface, env);
    report.provider = endpoint.provider.name;
    report.base_url = endpoint.baseUrl;
    report.model = endpoint.model;
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
    const profile = endpoint.provider;
    report.sent = {
      token_limit: profile.tokenLimit,
      schema: profile.schema,
      stream_options: body.stream_options !== undefined,
    };
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: 'text/event-stream',
    };
    if (endpoint.apiKey) {
      if (profile.auth === 'api-key') headers['api-key'] = endpoint.apiKey;
      else headers.authorization = `Bearer ${endpoint.apiKey}`;
    }
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), endpoint.timeoutMs);
    const what = `LLM call to ${endpoint.name} endpoint (${endpoint.model})`;
    const state = newStreamState();
    state.reasoningFields = profile.reasoning;
    try {
      const res = await sendHttp(`${endpoint.baseUrl}/chat/completions`, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        signal: controller.signal,
      });
      report.http_status = res.status;
      if (!res.ok) throw await upstreamFailure(res, {}, true, what, []);
      await readCompletionStream(res, state, started);
      report.finish_reason = state.finishReason;
      report.tokens = tokensOf(state.usage);
      report.reasoning = state.reasoningText !== '';
      const ended = endedBadly(state, {}, []);
      if (ended) throw ended;
      const parsed = tryParseJson(normalizeAssistantText(state.rawText));
      if (!parsed.ok) {
        if (state.finishReason === 'length')
          throw truncated(
            state,
            (body[profile.tokenLimit] as number | undefined) ?? undefined,
            parsed.error,
            {},
          );
        throw new SourceFailure('non_json', `the model's reply is not JSON (${parsed.error})`);
      }
      report.reply = redactor.json(parsed.value);
      report.ok = true;
    } catch (err) {
      throw transportFailure(err, {
        timedOut: controller.signal.aborted,
        cancelled: false,
        what,
      });
    } finally {
      clearTimeout(timer);
    }
  } catch (err) {
    return fail(err);
  }
  report.duration_ms = Date.now() - started;
  return report;
}
