/** The `http_json` source: one JSON request to an operator-configured URL, one JSON response. */
import { SourceFailure, transportFailure } from '../failure.ts';
import { sendHttp } from '../http-transport.ts';
import type { ResponseSource, SourceResponse } from '../source.ts';
import {
  type HttpJsonInterface,
  httpJsonInterfaceSchema,
  printableUrl,
  resolveBearerToken,
  resolveUrl,
} from './interface.ts';
import { readBoundedText, tryParseJson } from './read-body.ts';

export const httpJsonSource: ResponseSource = {
  name: 'http_json',
  interfaceSchema: httpJsonInterfaceSchema,
  plan({ iface: raw, request, env, timeoutMs }) {
    const iface = raw as unknown as HttpJsonInterface;
    const url = resolveUrl(iface, env);
    const token = resolveBearerToken(iface, env);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (iface.method !== 'GET') headers['content-type'] = 'application/json';
    if (token) headers.authorization = `Bearer ${token}`;
    const what = `${iface.method} ${url.pathname}`;
    return {
      request_json: request ?? null,
      metadata: { method: iface.method, url: printableUrl(url), url_env: iface.url_env },
      timeout_ms: timeoutMs ?? iface.timeout_ms,
      secrets: token ? [token] : [],
      async execute(ctx) {
        let response: SourceResponse | undefined;
        try {
          const res = await sendHttp(url, {
            method: iface.method,
            headers,
            ...(iface.method !== 'GET' ? { body: JSON.stringify(request ?? null) } : {}),
            signal: ctx.signal,
          });
          response = { http_status: res.status, response_headers: res.headers() };
          const text = await readBoundedText(res, what);
          response.response_text = text;
          const parsed = tryParseJson(text);
          if (parsed.ok) response.response_json = parsed.value;
          if (!res.ok) {
            throw new SourceFailure('http_status', `${what} answered HTTP ${res.status}`, { response });
          }
          if (!parsed.ok) {
            throw new SourceFailure(
              'non_json',
              `${what} answered a body that is not JSON (${parsed.error})`,
              {
                response,
              },
            );
          }
          return { ...response, response_text: null, output: parsed.value };
        } catch (err) {
          throw transportFailure(err, {
            timedOut: ctx.timedOut(),
            cancelled: ctx.cancelled(),
            what,
            ...(response ? { response } : {}),
          });
        }
      },
    };
  },
};
