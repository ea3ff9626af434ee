/**
 * `noema source invoke`: stores a source definition, invokes it once with full tracing and
 * prints the invocation record — the way to try a source before wiring it into a workflow.
 */
import { readFileSync } from 'node:fs';
import { loadConfig } from '../../../app/config.ts';
import { openNoemaStore } from '../../../app/open.ts';
import { NoemaError } from '../../../core/errors.ts';
import { type Command, EXIT_FAILED, EXIT_OK } from '../command.ts';
import { parseChoiceFlag } from '../flags.ts';

function readJsonFile(path: string, what: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new NoemaError('USAGE', `cannot read ${what} ${path}: ${(err as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new NoemaError('USAGE', `${what} ${path} is not JSON: ${(err as Error).message}`);
  }
}

function parseJsonFlag(value: string, flag: string): unknown {
  try {
    return JSON.parse(value);
  } catch (err) {
    throw new NoemaError('USAGE', `${flag} is not JSON: ${(err as Error).message}`);
  }
}

export const sourceInvokeCommand: Command = {
  path: ['source', 'invoke'],
  summary: 'Store a source definition, invoke it once with full tracing, print the invocation record',
  args: '<source.json>',
  flags: {
    request: { type: 'string', description: 'the JSON request, e.g. \'{"turn":1}\'' },
    'result-schema': { type: 'string', description: 'a JSON Schema file the result must match' },
    'mcp-server': { type: 'string', description: 'an MCP server config file; fills interface.server_ref' },
    kind: { type: 'string', description: 'invocation_kind to record (default manual)' },
    db: { type: 'string', description: 'store: file path or postgres:// URL (NOEMA_DB)' },
  },
  async run({ flags, positionals, io }) {
    // Loaded here, not at the top: `noema --help` and other commands stay light.
    const {
      getLlmCall,
      getSourceInvocation,
      INVOCATION_KINDS,
      invokeSource,
      putJsonSchema,
      putMcpServer,
      putResponseSource,
    } = await import('../../../sources/index.ts');
    const [file] = positionals;
    if (!file)
      throw new NoemaError('USAGE', 'name the source definition file', {
        hint: 'noema source invoke source.json --request "{}"',
      });
    const doc = readJsonFile(file, 'source definition') as Record<string, unknown>;
    const request = typeof flags.request === 'string' ? parseJsonFlag(flags.request, '--request') : {};
    const kind =
      typeof flags.kind === 'string' ? parseChoiceFlag(flags.kind, '--kind', INVOCATION_KINDS) : 'manual';
    const config = loadConfig({ db: flags.db as string | undefined });
    const store = await openNoemaStore(config);
    try {
      if (typeof flags['mcp-server'] === 'string') {
        const server = await putMcpServer(store, readJsonFile(flags['mcp-server'], 'MCP server config'));
        const iface = (doc.interface ?? {}) as Record<string, unknown>;
        doc.interface = { ...iface, server_ref: { hash: server.hash } };
      }
      const source = await putResponseSource(store, doc);
      const schemaFile = flags['result-schema'];
      const resultSchema =
        typeof schemaFile === 'string'
          ? await putJsonSchema(store, readJsonFile(schemaFile, 'result schema') as Record<string, unknown>)
          : null;
      const out = await invokeSource(store, {
        source,
        request,
        kind,
        resultSchema,
      });
      const record: Record<string, unknown> = await getSourceInvocation(store, out.source_invocation_id);
      if (out.llm_call_id) record.llm_call = await getLlmCall(store, out.llm_call_id, { maxChunks: 200 });
      if (out.error)
        record.error = { code: out.error.code, message: out.error.message, hint: out.error.hint };
      io.out(JSON.stringify(record, null, 2));
      return out.ok ? EXIT_OK : EXIT_FAILED;
    } finally {
      await store.close();
    }
  },
};
