/**
 * An MCP tool as Noema defines it: a name from the seeds, a description that says what it
 * does, a real JSON Schema for its input, and a handler returning the output object.
 * Handlers throw `NoemaError`; the MCP server turns that into `isError: true` with
 * `{ "error": { "code", "message", "details", "retryable", "recovery"? } }` (recovery = the error's hint).
 */
import type { Store } from '../../store/store.ts';
import type { RawJsonSplice } from './raw-json.ts';

export interface McpToolContext {
  store: Store;
  /**
   * Present when the transport's answer is text Noema splices (stdio; over HTTP, a JSON answer): a
   * result with its JSON text made goes in as that text, its objects never made.
   */
  rawJson?: RawJsonSplice;
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
 * An output with its JSON text already made — the text of the value `makeValue` returns, its keys
 * perhaps in another order — which the result carries as it is instead of serializing the value
 * again (a large answer made from stored text: `get_world`). The value is made only when a transport
 * needs the objects (`value`), once.
 */
export class WithJsonText {
  readonly text: string;
  #makeValue: (() => Record<string, unknown>) | null;
  #value: Record<string, unknown> | null = null;
  constructor(text: string, makeValue: () => Record<string, unknown>) {
    this.text = text;
    this.#makeValue = makeValue;
  }

  get value(): Record<string, unknown> {
    if (this.#makeValue) {
      this.#value = this.#makeValue();
      this.#makeValue = null;
    }
    return this.#value!;
  }
}
