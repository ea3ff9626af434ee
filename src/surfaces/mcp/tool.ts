/**
 * An MCP tool as Noema defines it: a name from the seeds, a description that says what it
 * does, a real JSON Schema for its input, and a handler returning the output object.
 * Handlers throw `NoemaError`; the MCP server turns that into `isError: true` with
 * `{ "error": { "code", "message", "details", "retryable", "recovery"? } }` (recovery = the error's hint).
 */
import type { Store } from '../../store/store.ts';
import { type Escaped, type JsonPieces, jsonText, type RawJsonSplice } from './raw-json.ts';

export interface McpToolContext {
  store: Store;
  /**
   * Present when the transport's answer is one Noema splices (stdio; over HTTP, a JSON answer or an
   * event stream): a result with its JSON made goes in as those bytes, its objects and its text never
   * made.
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
 * An output with its JSON already made — the UTF-8 bytes of the text of the value `makeValue`
 * returns, its keys perhaps in another order — which the result carries as it is instead of
 * serializing the value again (a large answer made from stored text: `get_world`). The value is made
 * only when a transport needs the objects (`value`), the text only when it needs a string (`text`),
 * each once. `escaped`, if given, may answer the text already escaped as a JSON string (from a cache
 * of escaped text), for the text content a splice writes.
 */
export class WithJsonText {
  readonly json: JsonPieces;
  readonly escaped: Escaped | undefined;
  #makeValue: (() => Record<string, unknown>) | null;
  #value: Record<string, unknown> | null = null;
  #text: string | null = null;
  constructor(json: JsonPieces, makeValue: () => Record<string, unknown>, escaped?: Escaped) {
    this.json = json;
    this.#makeValue = makeValue;
    this.escaped = escaped;
  }

  get value(): Record<string, unknown> {
    if (this.#makeValue) {
      this.#value = this.#makeValue();
      this.#makeValue = null;
    }
    return this.#value!;
  }

  get text(): string {
    this.#text ??= jsonText(this.json);
    return this.#text;
  }
}
