/**
 * How an LLM call ended, as a typed failure: an HTTP error answer read into its class (with the
 * provider's message, `Retry-After`, a hint), a stream the content filter stopped or the model
 * refused, a reply cut off by the token limit. Shared by the source and `noema llm check`.
 */
import { SourceFailure } from '../failure.ts';
import { readBoundedText, tryParseJson } from '../http-json/read-body.ts';
import type { HttpReply } from '../http-transport.ts';
import type { FailureClass, SourceResponse } from '../source.ts';
import type { StreamState } from './stream.ts';
import { classifyUpstream, readUpstreamError, retryAfterMs } from './upstream-errors.ts';

const REJECTS_FORMAT = /response_format|json_schema|structured output|structured_output/i;

export async function upstreamFailure(
  res: HttpReply,
  response: SourceResponse,
  sentFormat: boolean,
  what: string,
  artifacts: Array<{ kind: string; content: unknown }>,
): Promise<SourceFailure> {
  const text = await readBoundedText(res, what);
  response.response_text = text;
  const parsed = tryParseJson(text);
  if (parsed.ok) response.response_json = parsed.value;
  artifacts.push({
    kind: 'upstream_error',
    content: { http_status: res.status, body: parsed.ok ? parsed.value : text },
  });
  if (sentFormat && res.status >= 400 && res.status < 500 && REJECTS_FORMAT.test(text)) {
    return new SourceFailure(
      'response_format_rejected',
      `the LLM endpoint rejected response_format (HTTP ${res.status}); Noema does not fall back to prompt-only schemas`,
      {
        response,
        hint: 'use a model that supports json_schema response_format, or author the source with "schema_delivery": "prompt_only"',
      },
    );
  }
  const error = readUpstreamError(parsed.ok ? parsed.value : undefined, text);
  const failureClass = classifyUpstream(res.status, error) ?? 'http_status';
  // How long the provider asked to wait, in the recorded message and the error's details.
  const wait = res.status === 429 || res.status === 503 ? retryAfterMs((name) => res.header(name)) : null;
  const after = wait !== null ? ` (retry after ${wait} ms)` : '';
  const named = failureClass === 'http_status' ? '' : ` (${failureClass})`;
  return new SourceFailure(
    failureClass,
    `${what} answered HTTP ${res.status}${named}: ${error.message}${after}`,
    {
      response,
      details: { http_status: res.status, ...(wait !== null ? { retry_after_ms: wait } : {}) },
      ...(HINTS[failureClass] ? { hint: HINTS[failureClass] } : {}),
    },
  );
}

const HINTS: Partial<Record<FailureClass, string>> = {
  auth: "check the endpoint's API key (NOEMA_LLM_API_KEY or NOEMA_LLM_<NAME>_API_KEY) and its provider",
  model_not_found: "check the model name (NOEMA_LLM_MODEL, NOEMA_LLM_MODEL_<ALIAS>, or the source's model)",
  context_length_exceeded: 'shorten the prompt or lower the token limit',
};

/**
 * A stream that ended in a way no reply can be taken from: the provider's content filter stopped it,
 * or the model refused (OpenAI's `refusal`, whose text is recorded). Null otherwise.
 */
export function endedBadly(
  state: StreamState,
  response: SourceResponse,
  artifacts: Array<{ kind: string; content: unknown }>,
): SourceFailure | null {
  if (state.refusalText !== '') {
    artifacts.push({ kind: 'refusal', content: { text: state.refusalText } });
    return new SourceFailure('refusal', `the model refused: ${state.refusalText}`, {
      response,
      details: { refusal: state.refusalText },
    });
  }
  if (state.finishReason === 'content_filter') {
    return new SourceFailure(
      'content_filter',
      "the provider's content filter stopped the reply (finish_reason content_filter)",
      {
        response,
      },
    );
  }
  return null;
}

/** A reply cut off by the token limit (finish_reason `length`) that is not whole JSON. */
export function truncated(
  state: StreamState,
  limit: number | undefined,
  parseError: string,
  response: SourceResponse,
): SourceFailure {
  const used = typeof state.usage?.completion_tokens === 'number' ? state.usage.completion_tokens : undefined;
  const n = limit ?? used;
  const at = n !== undefined ? `at ${n} tokens` : "at the model's token limit";
  return new SourceFailure(
    'truncated',
    `the model's reply was cut off ${at} (finish_reason length) before its JSON ended`,
    {
      response,
      details: {
        ...(limit !== undefined ? { max_tokens: limit } : {}),
        ...(used !== undefined ? { completion_tokens: used } : {}),
        parse_error: parseError,
      },
      hint: "raise the source's max_tokens (or NOEMA_LLM_MAX_TOKENS), or ask for a shorter reply",
    },
  );
}
