/**
 * Opens an MCP client session to a stored server config with the official SDK. Stdio command
 * lines and the variables passed to them are the operator's to allow (`stdio-policy.ts`); HTTP
 * URLs and tokens come only from the environment variables the config names.
 */
// Types only: the SDK (and zod, which it loads: ~20 MB of RSS) is imported on the first MCP call,
// so a process that never calls an MCP tool (an idle server) does not carry it.

import { createHash } from 'node:crypto';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { loadOnce } from '../../core/load-once.ts';
import { telemetry } from '../../core/telemetry.ts';
import { notConfigured, SourceFailure } from '../failure.ts';
import type { McpServerConfig } from './servers.ts';
import { assertStdioAllowed, passthroughEnv } from './stdio-policy.ts';

type Env = Readonly<Record<string, string | undefined>>;

export interface PreparedTransport {
  describe: Record<string, unknown>;
  secrets: string[];
  open(): { transport: Transport; stderr: () => string };
  /**
   * Where a session may serve later calls (`sessions.ts`): the server and the credentials it was
   * opened with. Absent for stdio, whose server is a process of each call's own.
   */
  sessionKey?: string;
}

type Sdk = {
  Client: typeof import('@modelcontextprotocol/sdk/client/index.js').Client;
  getDefaultEnvironment: typeof import('@modelcontextprotocol/sdk/client/stdio.js').getDefaultEnvironment;
  StdioClientTransport: typeof import('@modelcontextprotocol/sdk/client/stdio.js').StdioClientTransport;
  StreamableHTTPClientTransport: typeof import('@modelcontextprotocol/sdk/client/streamableHttp.js').StreamableHTTPClientTransport;
};
/** The MCP SDK's client side, imported once on first use (a failed import is retried on the next call). */
const sdk = loadOnce(async (): Promise<Sdk> => {
  const [client, stdio, http] = await Promise.all([
    import('@modelcontextprotocol/sdk/client/index.js'),
    import('@modelcontextprotocol/sdk/client/stdio.js'),
    import('@modelcontextprotocol/sdk/client/streamableHttp.js'),
  ]);
  return {
    Client: client.Client,
    getDefaultEnvironment: stdio.getDefaultEnvironment,
    StdioClientTransport: stdio.StdioClientTransport,
    StreamableHTTPClientTransport: http.StreamableHTTPClientTransport,
  };
});

export async function prepareTransport(config: McpServerConfig, env: Env): Promise<PreparedTransport> {
  const { getDefaultEnvironment, StdioClientTransport, StreamableHTTPClientTransport } = await sdk();
  const t = config.transport;
  if (t.type === 'stdio') {
    assertStdioAllowed(t, env);
    const childEnv: Record<string, string> = {
      ...getDefaultEnvironment(),
      ...passthroughEnv(t.env_passthrough ?? [], env),
    };
    return {
      describe: { transport: 'stdio', command: t.command, args: t.args ?? [] },
      secrets: [],
      open() {
        const transport = new StdioClientTransport({
          command: t.command,
          args: t.args ?? [],
          env: childEnv,
          stderr: 'pipe',
          ...(t.cwd ? { cwd: t.cwd } : {}),
        });
        let err = '';
        transport.stderr?.on('data', (d: Buffer) => {
          if (err.length < 4000) err += d.toString('utf8');
        });
        return { transport, stderr: () => err.slice(0, 4000) };
      },
    };
  }
  const base = env[t.url_env];
  if (!base) throw notConfigured(t.url_env, 'MCP server URL');
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new SourceFailure('not_configured', `${t.url_env} is not a valid URL`, {
      details: { variable: t.url_env },
    });
  }
  // A stored config must not choose which secret goes to its URL: only `<url_env>_TOKEN`.
  const expectedTokenEnv = `${t.url_env}_TOKEN`;
  if (t.token_env && t.token_env !== expectedTokenEnv) {
    throw new SourceFailure(
      'not_configured',
      `token_env must be ${expectedTokenEnv} (the url_env followed by _TOKEN), not ${t.token_env}`,
      {
        details: { variable: t.token_env, expected: expectedTokenEnv },
        hint: `name the token variable ${expectedTokenEnv} in the server config and set it in the environment`,
      },
    );
  }
  const token = t.token_env ? env[t.token_env] : undefined;
  if (t.token_env && !token) throw notConfigured(t.token_env, 'MCP server token');
  const headers: Record<string, string> = {};
  if (token) {
    const header = t.token_header ?? 'authorization';
    headers[header] = header.toLowerCase() === 'authorization' ? `Bearer ${token}` : token;
  }
  return {
    describe: { transport: 'streamable_http', url_env: t.url_env, origin: url.origin },
    secrets: token ? [token] : [],
    open: () => ({
      transport: new StreamableHTTPClientTransport(url, {
        requestInit: { headers, redirect: 'error' },
        fetch: tracedFetch,
      }),
      stderr: () => '',
    }),
    sessionKey: createHash('sha256')
      .update(`${url.href}\n${JSON.stringify(headers)}`)
      .digest('hex'),
  };
}

/**
 * `fetch` with the running call's W3C `traceparent` added when tracing is on (the connection is
 * shared between calls, so the header is set per request, not per transport).
 */
function tracedFetch(input: string | URL, init?: RequestInit): Promise<Response> {
  // The server's own stream (a GET) is never opened: Noema's client takes no server-initiated
  // request (it declares no client capability), and a stream held open would keep a session's
  // process alive between calls. 405 is how a server says it offers none.
  if (init?.method === 'GET') return Promise.resolve(new Response(null, { status: 405 }));
  const traceparent = telemetry()?.outgoingTraceparent?.();
  if (!traceparent) return fetch(input, init);
  const headers = new Headers(init?.headers);
  if (!headers.has('traceparent')) headers.set('traceparent', traceparent);
  return fetch(input, { ...init, headers });
}

export async function newClient(): Promise<Client> {
  const { Client } = await sdk();
  return new Client({ name: 'noema', version: '0.1.0' });
}
