/**
 * Reads an LLM endpoint's error answer into a typed failure class. Providers write their errors
 * differently — OpenAI and most servers `{ "error": { "message", "type", "code" } }`, Gemini's
 * OpenAI layer an array of `{ "error": { "code", "message", "status" } }`, Anthropic
 * `{ "type": "error", "error": { "type", "message" } }`, LM Studio `{ "error": "text" }` — so the
 * message, type and code are read from any of these, then the class from the status and them
 * (docs/providers.md, "Errors").
 */
import type { FailureClass } from '../source.ts';

export interface UpstreamError {
  message: string;
  /** The provider's `type`, `code` and `status` fields, lower-cased, where present. */
  kinds: string[];
}

/** The message and kinds of an error body (parsed JSON, or its text when it is not JSON). */
export function readUpstreamError(body: unknown, text: string): UpstreamError {
  const root = Array.isArray(body) ? body[0] : body;
  const err = root && typeof root === 'object' ? (root as { error?: unknown }).error : undefined;
  const kinds: string[] = [];
  const add = (v: unknown) => {
    if (typeof v === 'string' || typeof v === 'number') kinds.push(String(v).toLowerCase());
  };
  if (typeof err === 'string') return { message: err, kinds };
  if (err && typeof err === 'object') {
    const e = err as Record<string, unknown>;
    add(e.type);
    add(e.code);
    add(e.status);
    const inner = e.innererror as Record<string, unknown> | undefined;
    if (inner && typeof inner === 'object') add(inner.code);
    return { message: typeof e.message === 'string' ? e.message : JSON.stringify(err), kinds };
  }
  // vLLM: `{ "object": "error", "message", "type", "code" }` at the top level.
  if (root && typeof root === 'object' && typeof (root as { message?: unknown }).message === 'string') {
    const r = root as Record<string, unknown>;
    add(r.type);
    add(r.code);
    return { message: r.message as string, kinds };
  }
  return { message: text.slice(0, 500), kinds };
}

const CONTEXT =
  /context_length_exceeded|exceed_context_size|context (?:length|size|window)|prompt is too long|exceeds the maximum number of tokens|input is too long/i;
const BAD_KEY =
  /api key not valid|invalid api key|incorrect api key|invalid x-api-key|authentication_error|invalid_api_key/i;
const MODEL_NOT_FOUND =
  /model_not_found|deploymentnotfound|not_found_error.*\bmodel\b|(?:model|deployment).*(?:not found|does not exist|not exist)|no such model|unknown model|not a valid model/i;
/model_not_found|model.*(?:not found|does not exist|not exist)|no such model|unknown model|not a valid model/i;
const CONTENT_FILTER = /content_filter|content_policy|responsibleaipolicyviolation|safety/i;

/** The failure class of an HTTP error answer, or null for a plain `http_status`. */
export function classifyUpstream(status: number, e: UpstreamError): FailureClass | null {
  const words = `${e.kinds.join(' ')} ${e.message}`;
  if (status === 401 || status === 403) return 'auth';
  // Gemini answers a bad key 400 INVALID_ARGUMENT "API key not valid".
  if (status === 400 && BAD_KEY.test(words)) return 'auth';
  if (status === 429 || e.kinds.includes('resource_exhausted') || e.kinds.includes('rate_limit_exceeded'))
    return 'rate_limited';
  if (status >= 400 && status < 500) {
    if (CONTEXT.test(words)) return 'context_length_exceeded';
    if (e.kinds.some((k) => CONTENT_FILTER.test(k))) return 'content_filter';
    // A 404 alone may be a wrong base URL: only one that names the model is model_not_found.
    if (MODEL_NOT_FOUND.test(words)) return 'model_not_found';
  }
  return null;
}

/**
 * How long a 429 (or 503) asks the caller to wait, in ms: Azure's `retry-after-ms`, else
 * `Retry-After` in seconds or as an HTTP date. Null when neither is usable.
 */
export function retryAfterMs(
  headers: (name: string) => string | null | undefined,
  now = Date.now(),
): number | null {
  const ms = headers('retry-after-ms');
  if (ms != null && /^\d+(?:\.\d+)?$/.test(ms.trim())) return Math.ceil(Number(ms));
  const after = headers('retry-after');
  if (after == null) return null;
  const v = after.trim();
  if (/^\d+(?:\.\d+)?$/.test(v)) return Math.ceil(Number(v) * 1000);
  const at = Date.parse(v);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}
