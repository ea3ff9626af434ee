/**
 * The provider fixture: a real HTTP server on 127.0.0.1 that answers Chat Completions the way one
 * provider does. It enforces that provider's published request rules (a strict schema outside the
 * subset, `max_tokens` or a `temperature` a reasoning model refuses: that provider's 400 body),
 * streams in its shape (reasoning chunks in its field, a usage chunk, comments), and can be told to
 * answer as it does when rate limited, failing, overloaded, refusing, cut off or filtered.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ProviderName } from '../../sources/index.ts';
import { fill, type RecordedError, recordingOf } from './recordings.ts';
import { refusalOf } from './rules.ts';

export const SCENARIOS = [
  'ok',
  'rate_limited',
  'server_error',
  'unavailable',
  'auth',
  'model_not_found',
  'context_length',
  'refusal',
  'length',
  'content_filter',
  'mid_stream_error',
  'no_usage',
] as const;

export type Scenario = (typeof SCENARIOS)[number];

export interface FixtureRequest {
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
  scenario: Scenario;
  /** The 400 the rules answered, when they refused the request. */
  refused: string | null;
}

export interface ProviderFixture {
  /** Base URL for NOEMA_LLM_BASE_URL (`http://127.0.0.1:<port>/v1`). */
  url: string;
  profile: ProviderName;
  requests: FixtureRequest[];
  /** Queues scenarios for the next requests, in order; an empty queue answers `ok`. */
  next(...scenarios: Scenario[]): void;
  close(): Promise<void>;
}

export interface ProviderFixtureOptions {
  profile: ProviderName;
  port?: number;
  /**
   * The assistant's reply text (default `{"ok":true}`), or a function of the request (body, headers)
   * choosing it; reasoning chunks precede it where the provider streams them.
   */
  reply?: string | ((body: Record<string, unknown>, headers: FixtureRequest['headers']) => string);
  /** The `Retry-After` seconds a `rate_limited` answer carries (default the recording's). */
  retryAfterSeconds?: number;
  /**
   * The models served: `GET /models` lists them and a call naming another answers the provider's
   * model-not-found body. Unset, any model is answered and the recording's names are listed.
   */
  models?: string[];
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (d: Buffer) => parts.push(d));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, e: RecordedError): void {
  const text = JSON.stringify(e.body);
  res.writeHead(e.status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
    ...e.headers,
  });
  res.end(text);
}

function authorized(profile: ProviderName, req: IncomingMessage): boolean {
  if (profile === 'azure-openai') return typeof req.headers['api-key'] === 'string';
  if (profile === 'ollama' || profile === 'llamacpp' || profile === 'lmstudio' || profile === 'vllm')
    return true;
  return /^Bearer \S+/.test(String(req.headers.authorization ?? ''));
}

/** `GET /models` as the provider answers it: OpenAI's list; Gemini's ids under `models/`; Anthropic's page. */
function modelList(profile: ProviderName, ids: string[]): unknown {
  if (profile === 'anthropic')
    return {
      data: ids.map((id) => ({ type: 'model', id, display_name: id, created_at: '2025-09-29T00:00:00Z' })),
      has_more: false,
      first_id: ids[0] ?? null,
      last_id: ids.at(-1) ?? null,
    };
  const owner = profile === 'gemini' ? 'google' : profile;
  return {
    object: 'list',
    data: ids.map((id) => ({
      id: profile === 'gemini' ? `models/${id}` : id,
      object: 'model',
      created: 1_700_000_000,
      owned_by: owner,
    })),
  };
}

export async function startProviderFixture(options: ProviderFixtureOptions): Promise<ProviderFixture> {
  const { profile } = options;
  const rec = recordingOf(profile);
  const queue: Scenario[] = [];
  const requests: FixtureRequest[] = [];
  const replyTo = (body: Record<string, unknown>, headers: FixtureRequest['headers']) =>
    typeof options.reply === 'function' ? options.reply(body, headers) : (options.reply ?? '{"ok":true}');

  const stream = (res: ServerResponse, body: Record<string, unknown>, scenario: Scenario) => {
    const model = String(body.model);
    const id = `chatcmpl-fixture-${requests.length}`;
    // The request being answered is the last one recorded.
    const reply = replyTo(body, requests.at(-1)?.headers ?? {});
    const created = Math.floor(Date.now() / 1000);
    const event = (choices: unknown[], extra: Record<string, unknown> = {}) =>
      `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model, choices, ...extra })}\n\n`;
    const delta = (d: Record<string, unknown>, finish: string | null = null) =>
      event([{ index: 0, delta: d, logprobs: null, finish_reason: finish }]);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    let out = rec.comment ? `: ${rec.comment}\n\n` : '';
    out += delta({ role: 'assistant', content: '' });
    if (rec.reasoning_field) {
      for (const piece of ['Thinking about', ' the reply.'])
        out += delta({ [rec.reasoning_field]: piece, content: null });
    }
    let finish = 'stop';
    let text = reply;
    if (scenario === 'refusal' && rec.refusal) {
      out += delta({ content: null, refusal: rec.refusal });
      text = '';
    } else if (scenario === 'refusal') {
      text = "I can't help with that.";
    } else if (scenario === 'length') {
      text = reply.slice(0, Math.max(1, Math.floor(reply.length / 2)));
      finish = 'length';
    } else if (scenario === 'content_filter') {
      text = '';
      finish = 'content_filter';
    }
    for (let i = 0; i < text.length; i += 8) out += delta({ content: text.slice(i, i + 8) });
    if (scenario === 'mid_stream_error') {
      // OpenRouter's mid-stream error: an event with `error` and finish_reason "error", then the end.
      out += event([{ index: 0, delta: { content: '' }, finish_reason: 'error' }], {
        error: rec.mid_stream_error ?? {
          code: 'server_error',
          message: 'Provider disconnected unexpectedly',
        },
      });
      return res.end(out);
    }
    out += delta({}, finish);
    const wantsUsage =
      (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
    // llama.cpp sends the usage on the last chunk whether asked or not; LM Studio sends none while
    // streaming (lmstudio-bug-tracker#676, #713: stream_options is not supported); `no_usage` is a
    // server that ignores the ask (an older one, or a proxy that drops the last chunk).
    if (profile !== 'lmstudio' && scenario !== 'no_usage' && (wantsUsage || profile === 'llamacpp')) {
      out += event([], { usage: rec.usage, ...(rec.timings ? { timings: rec.timings } : {}) });
    }
    out += 'data: [DONE]\n\n';
    res.end(out);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && (path === '/v1/models' || path === '/models')) {
      if (!authorized(profile, req)) return send(res, recorded('auth', {}));
      return send(res, { status: 200, body: modelList(profile, options.models ?? rec.models) });
    }
    // Told what to answer next over HTTP: `POST /fixture/next {"scenarios": ["rate_limited", …]}`.
    if (req.method === 'POST' && path === '/fixture/next') {
      const asked = (JSON.parse((await readBody(req)) || '{}') as { scenarios?: unknown }).scenarios;
      const list = Array.isArray(asked) ? asked : [];
      const bad = list.find((s) => !(SCENARIOS as readonly unknown[]).includes(s));
      if (bad !== undefined)
        return send(res, {
          status: 400,
          body: {
            error: { message: `unknown scenario ${JSON.stringify(bad)}; one of ${SCENARIOS.join(', ')}` },
          },
        });
      queue.push(...(list as Scenario[]));
      return send(res, { status: 200, body: { queued: queue.length } });
    }
    if (req.method !== 'POST' || (path !== '/v1/chat/completions' && path !== '/chat/completions'))
      return send(res, { status: 404, body: { error: { message: `no route ${req.method} ${path}` } } });
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(await readBody(req)) as Record<string, unknown>;
    } catch {
      return send(res, fillRule('request body is not JSON', null, null));
    }
    const scenario = queue.shift() ?? 'ok';
    const refusal = refusalOf(profile, body);
    requests.push({ headers: req.headers, body, scenario, refused: refusal?.message ?? null });
    if (!authorized(profile, req) || scenario === 'auth') return send(res, recorded('auth', body));
    if (refusal) return send(res, fillRule(refusal.message, refusal.code, refusal.param));
    if (options.models && !options.models.includes(String(body.model)))
      return send(res, recorded('model_not_found', body));
    if (scenario === 'rate_limited') {
      const e = recorded('rate_limited', body);
      if (options.retryAfterSeconds !== undefined) {
        e.headers = { ...e.headers, 'retry-after': String(options.retryAfterSeconds) };
        delete e.headers['retry-after-ms'];
      }
      return send(res, e);
    }
    if (
      scenario === 'server_error' ||
      scenario === 'unavailable' ||
      scenario === 'model_not_found' ||
      scenario === 'context_length'
    )
      return send(res, recorded(scenario, body));
    return stream(res, body, scenario);
  };

  const recorded = (name: string, body: Record<string, unknown>): RecordedError => {
    const e = rec.errors[name]!;
    return {
      status: e.status,
      headers: { ...e.headers },
      body: fill(e.body, { model: String(body.model ?? '') }),
    };
  };
  const fillRule = (message: string, code: string | null, param: string | null): RecordedError => ({
    status: rec.rule_error.status,
    body: fill(rec.rule_error.body, { message, code, param }),
  });

  const server = createServer((req, res) => {
    handle(req, res).catch((err: Error) => {
      if (!res.headersSent) send(res, { status: 500, body: { error: { message: err.message } } });
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    profile,
    requests,
    next: (...s) => queue.push(...s),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
