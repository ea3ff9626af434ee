/**
 * An MCP tool as Noema defines it: a name from the seeds, a description that says what it
 * does, a real JSON Schema for its input, and a handler returning the output object.
 * Handlers throw `NoemaError`; the MCP server turns that into `isError: true` with
 * `{ "error": { "code", "message", "details", "retryable", "recovery"? } }` (recovery = the error's hint).
 */
import type { Store } from '../../store/store.ts';

export interface McpToolContext {
  store: Store;
  /** Present when the client passed a progress token: sends one `notifications/progress` per call. */
  progress?: (message: string) => Promise<void>;
}

export interface McpToolDef<I = Record<string, unknown>, O = Record<string, unknown>> {
  name: string;
  description: string;
  /** JSON Schema (draft 2020-12) of the arguments object; property descriptions say what each field means. */
  inputSchema: Record<string, unknown>;
  /** Receives arguments already validated against `inputSchema`. */
  handler(input: I, ctx: McpToolContext): Promise<O | WithJsonText>;
}

/**
 * An output with its JSON text already made — the same value as `JSON.stringify(value)`, its keys
 * perhaps in another order — which the result carries as it is instead of serializing `value` again
 * (a large answer made from stored text: `get_world`).
 */
export class WithJsonText {
  readonly value: Record<string, unknown>;
  readonly text: string;
  constructor(value: Record<string, unknown>, text: string) {
    this.value = value;
    this.text = text;
  }
}
