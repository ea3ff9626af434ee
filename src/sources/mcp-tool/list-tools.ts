/**
 * Discovers the tools of a stored MCP server with `tools/list` (one SDK client session), for
 * runtimes that pin tool names, descriptions and input schemas into their definitions at put time.
 * The same operator policy as calls applies (stdio allowlist, env passthrough, URL/token variables).
 */

import type { Queryable } from '../../store/store.ts';
import { SourceFailure, transportFailure } from '../failure.ts';
import { newClient, prepareTransport } from './connect.ts';
import { getMcpServer } from './servers.ts';

export interface DiscoveredTool {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

export async function listMcpTools(
  q: Queryable,
  server_hash: string,
  options: { env?: Readonly<Record<string, string | undefined>>; timeoutMs?: number } = {},
): Promise<DiscoveredTool[]> {
  const server = await getMcpServer(q, server_hash);
  const prepared = await prepareTransport(server, options.env ?? process.env);
  const client = await newClient();
  const { transport, stderr } = prepared.open();
  const signal = AbortSignal.timeout(options.timeoutMs ?? 15_000);
  try {
    await client.connect(transport, { signal });
    const tools: DiscoveredTool[] = [];
    let cursor: string | undefined;
    // Bounded: a server paging forever cannot hold the caller.
    for (let page = 0; page < 50; page++) {
      const r = await client.listTools(cursor ? { cursor } : {}, { signal });
      for (const t of r.tools)
        tools.push({
          name: t.name,
          description: t.description ?? '',
          input_schema: (t.inputSchema ?? { type: 'object' }) as Record<string, unknown>,
        });
      cursor = r.nextCursor;
      if (!cursor) break;
    }
    return tools;
  } catch (err) {
    if (err instanceof SourceFailure) throw err;
    const what = `MCP server ${server_hash.slice(0, 12)} tools/list${stderr() ? ` (stderr: ${stderr().slice(0, 500)})` : ''}`;
    throw transportFailure(err, { timedOut: signal.aborted, cancelled: false, what });
  } finally {
    await client.close().catch(() => {});
  }
}
