// Helpers for MCP end-to-end specs: stock SDK clients over stdio (`noema mcp`) and streamable HTTP,
// calls that check the reply contract, and a store fingerprint for "nothing changed" assertions.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Store } from '../../src/store/store.ts';
import { NOEMA_BIN } from '../../src/testing/cli.ts';

export type Reply =
  | { ok: true; value: Record<string, unknown> }
  | { ok: false; error: { code: string; message: string; recovery?: string } };

export interface McpTestClient {
  client: Client;
  call(name: string, args: unknown): Promise<Reply>;
  /** call that must succeed; returns the output object. */
  ok<T = Record<string, unknown>>(name: string, args: unknown): Promise<T>;
  close(): Promise<void>;
}

function wrap(client: Client, close: () => Promise<void>): McpTestClient {
  const call = async (name: string, args: unknown): Promise<Reply> => {
    const r = await client.callTool({ name, arguments: args as Record<string, unknown> });
    const content = r.content as Array<{ type: string; text: string }>;
    assert.equal(content[0]?.type, 'text');
    const parsed = JSON.parse(content[0]?.text ?? 'null') as Record<string, unknown>;
    assert.deepEqual(r.structuredContent, parsed, 'structuredContent equals the JSON text of content[0]');
    if (r.isError) {
      const error = parsed.error as { code: string; message: string; recovery?: string };
      assert.equal(typeof error?.code, 'string');
      assert.equal(typeof error?.message, 'string');
      return { ok: false, error };
    }
    return { ok: true, value: parsed };
  };
  return {
    client,
    call,
    async ok<T>(name: string, args: unknown) {
      const r = await call(name, args);
      if (!r.ok) assert.fail(`${name} failed: ${JSON.stringify(r.error)}`);
      return r.value as T;
    },
    close,
  };
}

/** A stock SDK client driving a real `noema mcp` child process on the store at `dbUrl`. */
export async function stdioClient(dbUrl: string): Promise<McpTestClient> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  env.NOEMA_DB = dbUrl;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [NOEMA_BIN, 'mcp'],
    env,
    stderr: 'pipe',
  });
  const client = new Client({ name: 'noema-test', version: '1.0.0' });
  await client.connect(transport);
  return wrap(client, () => client.close());
}

/** A stock SDK client over streamable HTTP at `${baseUrl}/mcp` with the server token. */
/** A stock SDK client over streamable HTTP at `path` (default `/mcp`, the memory catalog). */
export async function httpClient(baseUrl: string, token: string, path = '/mcp'): Promise<McpTestClient> {
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}${path}`), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  const client = new Client({ name: 'noema-test', version: '1.0.0' });
  await client.connect(transport);
  return wrap(client, () => client.close());
}

export function wrapClient(client: Client): McpTestClient {
  return wrap(client, () => client.close());
}

/** A digest of every row of every Noema table: equal digests mean the store did not change. */
export async function fingerprint(store: Store): Promise<string> {
  const tables = (await store.tableNames()).map((name) => ({ name }));
  const h = createHash('sha256');
  for (const { name } of tables) {
    const rows = await store.all(`SELECT * FROM ${name}`);
    const lines = rows
      .map((r) => JSON.stringify(r, (_k, v) => (typeof v === 'bigint' ? String(v) : v)))
      .sort();
    h.update(`${name}\n${lines.join('\n')}\n`);
  }
  return h.digest('hex');
}
