/**
 * The `models` line of `noema llm check`: whether the endpoint lists the configured model on
 * `GET <base>/models` (OpenAI's list shape, Gemini's `models/<id>` ids, Anthropic's `{data:[{id}]}`).
 */
import { readBoundedText, tryParseJson } from '../http-json/read-body.ts';
import { sendHttp } from '../http-transport.ts';
import type { LlmEndpoint } from './interface.ts';

export interface ModelListing {
  /** `listed`, `not_listed`, or why the list could not be read. */
  outcome: 'listed' | 'not_listed' | 'auth' | 'no_listing' | 'unreachable';
  /** The ids the endpoint listed (at most 50 kept). */
  ids: string[];
  http_status: number | null;
  message: string;
}

/** The ids of a `GET /models` answer, whatever its provider's shape. */
export function modelIdsOf(body: unknown): string[] {
  const list =
    body && typeof body === 'object' && Array.isArray((body as { data?: unknown }).data)
      ? (body as { data: unknown[] }).data
      : body && typeof body === 'object' && Array.isArray((body as { models?: unknown }).models)
        ? (body as { models: unknown[] }).models
        : [];
  const ids: string[] = [];
  for (const m of list) {
    const id =
      m && typeof m === 'object' ? ((m as { id?: unknown }).id ?? (m as { name?: unknown }).name) : m;
    if (typeof id === 'string') ids.push(id.replace(/^models\//, ''));
  }
  return ids;
}

export async function listModels(
  endpoint: LlmEndpoint,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<ModelListing> {
  let res: Awaited<ReturnType<typeof sendHttp>>;
  try {
    res = await sendHttp(`${endpoint.baseUrl}/models`, { method: 'GET', headers, signal });
  } catch (err) {
    return {
      outcome: 'unreachable',
      ids: [],
      http_status: null,
      message: `GET /models failed: ${err instanceof Error ? err.message : String(err)}`,
    };
  }
  const text = await readBoundedText(res, 'GET /models').catch(() => '');
  if (res.status === 401 || res.status === 403)
    return {
      outcome: 'auth',
      ids: [],
      http_status: res.status,
      message: `GET /models answered HTTP ${res.status}`,
    };
  if (!res.ok)
    return {
      outcome: 'no_listing',
      ids: [],
      http_status: res.status,
      message: `GET /models answered HTTP ${res.status}: the endpoint does not list its models`,
    };
  const parsed = tryParseJson(text);
  const ids = parsed.ok ? modelIdsOf(parsed.value) : [];
  const wanted = endpoint.model.replace(/^models\//, '');
  const listed = ids.includes(wanted);
  return {
    outcome: listed ? 'listed' : 'not_listed',
    ids: ids.slice(0, 50),
    http_status: res.status,
    message: listed
      ? `${endpoint.model} is among the ${ids.length} models listed`
      : `${endpoint.model} is not among the ${ids.length} models GET /models lists${ids.length > 0 ? ` (${ids.slice(0, 5).join(', ')}${ids.length > 5 ? ', …' : ''})` : ''}`,
  };
}
