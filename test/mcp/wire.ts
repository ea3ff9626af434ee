/**
 * What an MCP client transport receives, seen below the SDK client's dispatch. A server's progress
 * for a tool call is checked here, not through the SDK's `onprogress`: @modelcontextprotocol/sdk
 * (1.32) runs a notification's handler a microtask after reading it but a response's at once, so
 * progress read in the same chunk as the call's result reaches the client after the result retired
 * its token and is dropped as "unknown token" (modelcontextprotocol/typescript-sdk#2580). Under load
 * the last progress of a call and its result, written a moment apart, are often read together.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';

export interface WireProgress {
  /** Progress messages that arrived before the result of the call they report on, in order. */
  readonly beforeResult: string[];
  /** Progress messages that arrived after it (the server answered before its last progress). */
  readonly afterResult: string[];
}

type Fields = { id?: string | number; method?: string; params?: Record<string, unknown> };

/** Records the progress `transport` receives; call after `client.connect(transport)`. */
export function recordProgress(transport: Transport): WireProgress {
  const seen: WireProgress = { beforeResult: [], afterResult: [] };
  const tokenOf = new Map<string, string>();
  const answered = new Set<string>();
  const send = transport.send.bind(transport);
  transport.send = (message, options) => {
    const m = message as Fields;
    const token = (m.params?._meta as { progressToken?: unknown } | undefined)?.progressToken;
    if (m.method !== undefined && m.id !== undefined && token !== undefined)
      tokenOf.set(String(m.id), String(token));
    return send(message, options);
  };
  const deliver = transport.onmessage!;
  transport.onmessage = (message, extra) => {
    const m = message as Fields;
    if (m.method === 'notifications/progress') {
      const token = String(m.params?.progressToken);
      (answered.has(token) ? seen.afterResult : seen.beforeResult).push(String(m.params?.message));
    } else if (m.method === undefined && m.id !== undefined) {
      const token = tokenOf.get(String(m.id));
      if (token !== undefined) answered.add(token);
    }
    deliver(message, extra);
  };
  return seen;
}

/**
 * Holds the notifications `transport` receives until the next response or request, then hands the
 * client all of them and it in one synchronous batch: as one read holding a call's progress and its
 * result does. Call after `client.connect(transport)` (and after `recordProgress`, which then sees
 * the batch as the SDK does).
 */
export function readWithResults(transport: Transport): void {
  const held: Array<[JSONRPCMessage, MessageExtraInfo | undefined]> = [];
  const deliver = transport.onmessage!;
  transport.onmessage = (message, extra) => {
    if ((message as Fields).id === undefined) {
      held.push([message, extra]);
      return;
    }
    for (const [m, e] of held.splice(0)) deliver(m, e);
    deliver(message, extra);
  };
}
