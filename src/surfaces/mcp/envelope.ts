/**
 * Checks each JSON-RPC request's envelope before the SDK parses it. The SDK's own parse of a
 * malformed one (`params` missing, a tool name that is not a string, `initialize` without
 * `protocolVersion`) surfaces as a `-32603` internal error whose message is a Zod dump; here it is
 * the client's error: `-32602` invalid params with one line naming the field, or — for a
 * `tools/call` whose only fault is its `arguments` — the tool's `isError` result with
 * `INVALID_INPUT`, as every other argument problem is.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  type JSONRPCMessage,
  ListToolsRequestSchema,
  PingRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import { NoemaError } from '../../core/errors.ts';
import { errorResult } from './dispatch.ts';

/** The requests a Noema MCP server answers, by method. Unknown methods stay the SDK's (-32601). */
const REQUEST_SCHEMAS = {
  initialize: InitializeRequestSchema,
  ping: PingRequestSchema,
  'tools/list': ListToolsRequestSchema,
  'tools/call': CallToolRequestSchema,
} as const;

type Fields = { id?: string | number; method?: unknown; params?: unknown };

function fieldOf(path: ReadonlyArray<PropertyKey>): string {
  return path.map((p) => (typeof p === 'number' ? `[${p}]` : String(p))).join('.') || 'message';
}

/** The answer to a malformed request, or `undefined` when the SDK may take it. */
export function malformedRequestReply(message: JSONRPCMessage): JSONRPCMessage | undefined {
  const m = message as Fields;
  if (m.id === undefined || typeof m.method !== 'string' || !Object.hasOwn(REQUEST_SCHEMAS, m.method))
    return undefined;
  const method = m.method as keyof typeof REQUEST_SCHEMAS;
  const parsed = REQUEST_SCHEMAS[method].safeParse(message);
  if (parsed.success) return undefined;
  const issues = parsed.error.issues;
  if (method === 'tools/call' && issues.every((i) => i.path[0] === 'params' && i.path[1] === 'arguments')) {
    const err = new NoemaError('INVALID_INPUT', 'arguments must be an object', {
      details: { path: '/arguments' },
      hint: 'pass the tool arguments as a JSON object (or leave "arguments" out)',
      status: 400,
    });
    return { jsonrpc: '2.0', id: m.id, result: errorResult(err) };
  }
  const first = issues[0]!;
  const field = fieldOf(first.path);
  const why = first.message.replace(/^Invalid input: /, '').split('\n')[0];
  return {
    jsonrpc: '2.0',
    id: m.id,
    error: {
      code: ErrorCode.InvalidParams,
      message: `invalid ${method} request: ${field}: ${why}`,
      data: { field },
    },
  };
}

/**
 * Answers malformed requests on `transport` itself and hands everything else to the server.
 * Call right after `server.connect(transport)` (which installs the handler this wraps).
 */
export function guardMalformedRequests(transport: Transport): void {
  const deliver = transport.onmessage;
  if (!deliver) return;
  transport.onmessage = (message, extra) => {
    const reply = malformedRequestReply(message);
    if (reply === undefined) return deliver(message, extra);
    transport.send(reply).catch((err: unknown) => transport.onerror?.(err as Error));
  };
}
