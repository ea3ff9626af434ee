/**
 * `noema source invoke`: stores a source definition, invokes it once with full tracing and
 * prints the invocation record — the way to try a source before wiring it into a workflow.
 */
import { loadConfig } from '../../../app/config.ts';
import { openNoemaStore } from '../../../app/open.ts';
import { NoemaError } from '../../../core/errors.ts';
import { type Command, DB_FLAG, EXIT_FAILED, EXIT_OK } from '../command.ts';
import { readJsonFile } from '../files.ts';
import { parseChoiceFlag } from '../flags.ts';

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
  args: [{ name: 'source.json', required: true, description: 'the response source definition file' }],
  flags: {
    request: {
      type: 'string',
      value: 'json',
      description: 'the JSON request, e.g. \'{"turn":1}\'',
      default: '{}',
    },
    'result-schema': {
      type: 'string',
      value: 'file',
      description: 'a JSON Schema file the result must match',
    },
    'mcp-server': {
      type: 'string',
      value: 'file',
      description: 'an MCP server config file; fills interface.server_ref',
    },
    kind: { type: 'string', value: 'kind', description: 'invocation_kind to record', default: 'manual' },
    db: DB_FLAG,
  },
  example: 'noema source invoke examples/park/sources/weather.json --request \'{"turn":1}\'',
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
    const file = positionals[0]!;
    const doc = readJsonFile(file, 'source definition') as Record<string, unknown>;
    const request = typeof flags.request === 'string' ? parseJsonFlag(flags.request, '--request') : {};
    const kind =
      typeof flags.kind === 'string' ? parseChoiceFlag(flags.kind, '--kind', INVOCATION_KINDS) : 'manual';
    // Every named file is read before the store opens: a missing one changes nothing.
    const serverDoc =
      typeof flags['mcp-server'] === 'string'
        ? readJsonFile(flags['mcp-server'], 'MCP server config', '--mcp-server')
        : undefined;
    const schemaDoc =
      typeof flags['result-schema'] === 'string'
        ? (readJsonFile(flags['result-schema'], 'result schema', '--result-schema') as Record<
            string,
            unknown
          >)
        : undefined;
    const config = loadConfig({ db: flags.db as string | undefined });
    const store = await openNoemaStore(config);
    try {
      if (serverDoc !== undefined) {
        const server = await putMcpServer(store, serverDoc);
        const iface = (doc.interface ?? {}) as Record<string, unknown>;
        doc.interface = { ...iface, server_ref: { hash: server.hash } };
      }
      const source = await putResponseSource(store, doc);
      const resultSchema = schemaDoc !== undefined ? await putJsonSchema(store, schemaDoc) : null;
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
