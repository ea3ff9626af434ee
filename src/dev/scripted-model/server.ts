/**
 * The scripted model: a real OpenAI-compatible Chat Completions server on 127.0.0.1 that
 * answers from a script — streamed JSON or text, 5xx errors, `response_format` rejections,
 * hangs. Used by tests, the benchmark and the demo as a deterministic model.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ModelScript, matches, type RequestFacts, type ScriptReply } from './script.ts';

export interface RecordedRequest {
  call: number;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, unknown>;
}

export interface ScriptedModelServer {
  /** Base URL for NOEMA_LLM_BASE_URL, e.g. `http://127.0.0.1:4100/v1`. */
  url: string;
  /** Every request received, in order (kept only when `record` is true, the default). */
  requests: RecordedRequest[];
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (d: Buffer) => parts.push(d));
    req.on('end', () => resolve(Buffer.concat(parts).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

function factsOf(req: IncomingMessage, body: Record<string, unknown>, call: number): RequestFacts {
  const meta = (body.metadata ?? {}) as Record<string, unknown>;
  const turnRaw = req.headers['x-noema-turn'] ?? meta.turn;
  const messages = Array.isArray(body.messages) ? (body.messages as Array<{ content?: unknown }>) : [];
  return {
    model: typeof body.model === 'string' ? body.model : undefined,
    turn: turnRaw === undefined ? undefined : Number(turnRaw),
    subject: (req.headers['x-noema-subject'] as string | undefined) ?? (meta.subject as string | undefined),
    call,
    contents: messages.map((m) =>
      typeof m.content === 'string' ? m.content : JSON.stringify(m.content ?? ''),
    ),
    hasResponseFormat: body.response_format !== undefined,
  };
}

async function stream(
  res: ServerResponse,
  reply: ScriptReply,
  model: string,
  content: string,
): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const id = `chatcmpl-scripted-${Date.now()}`;
  const event = (delta: Record<string, unknown>, finish: string | null, usage?: unknown) =>
    `data: ${JSON.stringify({
      id,
      object: 'chat.completion.chunk',
      created: Math.floor(Date.now() / 1000),
      model,
      choices: finish === 'usage' ? [] : [{ index: 0, delta, finish_reason: finish }],
      ...(usage ? { usage } : {}),
    })}\n\n`;
  const size = reply.chunk_chars ?? 16;
  const pieces: string[] = [];
  for (let i = 0; i < content.length; i += size) pieces.push(content.slice(i, i + size));
  let out = event({ role: 'assistant', content: '' }, null);
  if (reply.refusal !== undefined) out += event({ content: null, refusal: reply.refusal }, null);
  let sent = 0;
  for (const piece of pieces) {
    if (reply.hang && sent >= (reply.hang_after_chunks ?? 0)) break;
    out += event({ content: piece }, null);
    sent += 1;
    if (reply.chunk_delay_ms) {
      res.write(out);
      out = '';
      await sleep(reply.chunk_delay_ms);
    }
  }
  if (reply.hang) {
    res.write(out);
    return; // never ends; close() destroys the socket
  }
  for (const [index, call] of toolCalls(reply).entries())
    out += event({ tool_calls: [{ index, ...call }] }, null);
  const usage = usageOf(reply, content);
  out += event({}, reply.finish_reason ?? (reply.tool_calls ? 'tool_calls' : 'stop'));
  if (reply.hang_after_finish) {
    res.write(out);
    return; // the answer is complete, the stream never ends; close() destroys the socket
  }
  out += event({}, 'usage', usage);
  out += 'data: [DONE]\n\n';
  res.end(out);
}

function toolCalls(reply: ScriptReply) {
  return (reply.tool_calls ?? []).map((call, index) => ({
    id: `call_scripted_${index}`,
    type: 'function',
    function: { name: call.name, arguments: JSON.stringify(call.arguments) },
  }));
}

function usageOf(reply: ScriptReply, content: string) {
  const completion = Math.max(1, Math.ceil(content.length / 4));
  return reply.usage ?? { prompt_tokens: 10, completion_tokens: completion, total_tokens: 10 + completion };
}

function complete(res: ServerResponse, reply: ScriptReply, model: string, content: string): void {
  const calls = toolCalls(reply);
  sendJson(res, 200, {
    id: `chatcmpl-scripted-${Date.now()}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content, ...(calls.length > 0 ? { tool_calls: calls } : {}) },
        finish_reason: reply.finish_reason ?? (calls.length > 0 ? 'tool_calls' : 'stop'),
      },
    ],
    usage: usageOf(reply, content),
  });
}

export async function startScriptedModel(options: {
  script: ModelScript;
  port?: number;
  record?: boolean;
  /**
   * Called (and awaited) when a chat request arrives, before any reply: a test checks here what
   * the caller had already made durable at the moment its request reached the model.
   */
  onRequest?: (request: RecordedRequest) => void | Promise<void>;
}): Promise<ScriptedModelServer> {
  const { script } = options;
  const used = new Map<number, number>();
  const requests: RecordedRequest[] = [];
  let calls = 0;
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && (path === '/v1/models' || path === '/models')) {
      return sendJson(res, 200, { object: 'list', data: [{ id: 'scripted', object: 'model' }] });
    }
    if (req.method !== 'POST' || (path !== '/v1/chat/completions' && path !== '/chat/completions')) {
      return sendJson(res, 404, { error: { message: `no route ${req.method} ${path}`, type: 'not_found' } });
    }
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(await readBody(req)) as Record<string, unknown>;
    } catch {
      return sendJson(res, 400, {
        error: { message: 'request body is not JSON', type: 'invalid_request_error' },
      });
    }
    calls += 1;
    const recorded = { call: calls, headers: req.headers, body };
    if (options.record !== false) requests.push(recorded);
    await options.onRequest?.(recorded);
    const facts = factsOf(req, body, calls);
    let reply: ScriptReply | undefined;
    for (const [i, rule] of script.rules.entries()) {
      if ((rule.times === undefined || (used.get(i) ?? 0) < rule.times) && matches(rule.match, facts)) {
        used.set(i, (used.get(i) ?? 0) + 1);
        reply = rule.reply;
        break;
      }
    }
    reply ??= script.default;
    if (!reply) {
      return sendJson(res, 500, {
        error: { message: 'scripted model: no rule matched this request', type: 'server_error' },
      });
    }
    if (reply.delay_ms) await sleep(reply.delay_ms);
    if ((script.reject_response_format || reply.reject_response_format) && facts.hasResponseFormat) {
      return sendJson(res, 400, {
        error: {
          message:
            "Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.",
          type: 'invalid_request_error',
          param: 'response_format',
          code: null,
        },
      });
    }
    if (reply.error)
      return sendJson(
        res,
        reply.error.status,
        reply.error.body ?? { error: { message: 'scripted failure' } },
        reply.error.headers,
      );
    const content = reply.json !== undefined ? JSON.stringify(reply.json) : (reply.text ?? '');
    // As the API does: a request without `stream: true` gets one chat.completion object.
    if (body.stream !== true && !reply.hang) return complete(res, reply, facts.model ?? 'scripted', content);
    return stream(res, reply, facts.model ?? 'scripted', content);
  };
  const server = createServer((req, res) => {
    handle(req, res).catch((err: Error) => {
      if (!res.headersSent) sendJson(res, 500, { error: { message: err.message } });
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
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
