/**
 * Stored MCP server configurations (`mcp_servers`), content-addressed like source definitions.
 * A config names how to reach a server — a stdio command, or a streamable HTTP URL taken from an
 * environment variable — never a secret: tokens come from the environment too.
 */
import { canonicalJson, invalidInput, NoemaError, sha256Hex } from '../../core/index.ts';
import { lruPerHandle } from '../../core/lru.ts';
import { schemas } from '../../core/schema-registry.ts';
import type { Queryable } from '../../store/store.ts';

export type McpServerTransport =
  | { type: 'stdio'; command: string; args?: string[]; cwd?: string; env_passthrough?: string[] }
  | { type: 'streamable_http'; url_env: string; token_env?: string; token_header?: string };

export interface McpServerConfig {
  version: 1;
  label?: string;
  transport: McpServerTransport;
}

const ENV_NAME = { type: 'string', pattern: '^[A-Z][A-Z0-9_]{0,127}$' };

export const mcpServerConfigSchema = {
  type: 'object',
  required: ['version', 'transport'],
  additionalProperties: false,
  properties: {
    version: { const: 1 },
    label: { type: 'string', pattern: '^[a-z0-9][a-z0-9_.-]{0,127}$' },
    transport: {
      oneOf: [
        {
          type: 'object',
          required: ['type', 'command'],
          additionalProperties: false,
          properties: {
            type: { const: 'stdio' },
            command: { type: 'string', minLength: 1, maxLength: 1000 },
            args: { type: 'array', items: { type: 'string', maxLength: 4000 }, maxItems: 64 },
            cwd: { type: 'string', maxLength: 1000 },
            env_passthrough: { type: 'array', items: ENV_NAME, maxItems: 64 },
          },
        },
        {
          type: 'object',
          required: ['type', 'url_env'],
          additionalProperties: false,
          properties: {
            type: { const: 'streamable_http' },
            url_env: ENV_NAME,
            token_env: ENV_NAME,
            token_header: { type: 'string', pattern: '^[A-Za-z0-9-]{1,64}$' },
          },
        },
      ],
    },
  },
} as const;

export async function putMcpServer(
  q: Queryable,
  config: unknown,
): Promise<{ hash: string; content: McpServerConfig }> {
  const r = schemas.validate<McpServerConfig>(mcpServerConfigSchema, config);
  if (!r.ok) throw invalidInput('MCP server config is invalid', { errors: r.errors });
  const text = canonicalJson(r.value);
  const hash = sha256Hex(text);
  await q.run(
    'INSERT INTO mcp_servers (hash, content, created_at) VALUES (?, ?, ?) ON CONFLICT (hash) DO NOTHING',
    [hash, text, Date.now()],
  );
  return { hash, content: JSON.parse(text) as McpServerConfig };
}

export async function getMcpServer(q: Queryable, hash: string): Promise<McpServerConfig> {
  return JSON.parse(await serverContent(q, hash)) as McpServerConfig;
}

/** Configs remembered per store handle: far more than the servers one process calls. */
const SERVERS_CACHED = 256;

const contentsOf = lruPerHandle<string, string>(SERVERS_CACHED);

/**
 * `getMcpServer` for a tool call: a config is content-addressed (its row is never updated nor
 * deleted), so the text read once for a hash stays its text, and later calls through the same store
 * handle read nothing. Per handle, so a database that lacks the config still says so; only found
 * configs are remembered.
 */
export async function getMcpServerCached(store: Queryable, hash: string): Promise<McpServerConfig> {
  const cache = contentsOf(store);
  let text = cache.get(hash);
  if (text === undefined) {
    text = await serverContent(store, hash);
    cache.set(hash, text);
  }
  return JSON.parse(text) as McpServerConfig;
}

async function serverContent(q: Queryable, hash: string): Promise<string> {
  const row = await q.get<{ content: string }>('SELECT content FROM mcp_servers WHERE hash = ?', [hash]);
  if (!row)
    throw new NoemaError('UNKNOWN_MCP_SERVER', `no MCP server config with hash ${hash}`, {
      details: { hash },
    });
  return row.content;
}
