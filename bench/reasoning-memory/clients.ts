/** Stock MCP SDK clients over stdio for the benchmark: `noema mcp`, and the reference memory server. */
import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { NOEMA_BIN } from '../../src/testing/cli.ts';

export interface Caller {
  call(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

function env(extra: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) out[k] = v;
  return { ...out, ...extra };
}

async function connect(command: string, args: string[], extra: Record<string, string>): Promise<Caller> {
  const transport = new StdioClientTransport({ command, args, env: env(extra), stderr: 'ignore' });
  const client = new Client({ name: 'noema-bench', version: '1.0.0' });
  await client.connect(transport);
  return {
    async call(name, args) {
      const r = await client.callTool({ name, arguments: args }, undefined, { timeout: 600_000 });
      const text = (r.content as Array<{ text: string }>)[0]?.text ?? '';
      if (r.isError) throw new Error(`${name} failed: ${text}`);
      return (r.structuredContent as Record<string, unknown>) ?? { text };
    },
    close: () => client.close(),
  };
}

export function noemaMcp(dbPath: string): Promise<Caller> {
  return connect(process.execPath, [NOEMA_BIN, 'mcp'], { NOEMA_DB: dbPath });
}

/** `@modelcontextprotocol/server-memory` with its JSONL file in a fresh temp dir. */
export function referenceMemory(): Promise<Caller> {
  const require = createRequire(import.meta.url);
  const main = join(
    require.resolve('@modelcontextprotocol/server-memory/package.json'),
    '..',
    'dist',
    'index.js',
  );
  const file = join(mkdtempSync(join(tmpdir(), 'noema-bench-memory-')), 'memory.jsonl');
  return connect(process.execPath, [main], { MEMORY_FILE_PATH: file });
}
