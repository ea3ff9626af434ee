/**
 * MCP over stdio with stored JSON spliced into the answers (`raw-json.ts`), as MCP over HTTP
 * does: a call's result may carry stand-ins for its structured content and its text (`spliceFor`),
 * and the message that answers it is written with the stored JSON in their place. A splice is kept from its first
 * stand-in until its answer is written, or its call is cancelled (the SDK then writes no answer), or
 * the transport closes.
 */
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { RawJsonSplice } from './raw-json.ts';

export class SplicingStdioTransport extends StdioServerTransport {
  readonly #out: Writable;
  /** Splices with a stand-in handed out and no answer written yet, by token. */
  readonly #live = new Map<string, RawJsonSplice>();

  constructor(stdin: Readable = process.stdin, stdout: Writable = process.stdout) {
    super(stdin, stdout);
    this.#out = stdout;
  }

  /** Splices waiting for their answer (for tests: none is left behind). */
  get pendingSplices(): number {
    return this.#live.size;
  }

  /** A splice for one call's result; dropped if `signal` (the call's) aborts before it is answered. */
  spliceFor(signal: AbortSignal): RawJsonSplice {
    return new RawJsonSplice((splice) => {
      if (signal.aborted) return;
      this.#live.set(splice.token, splice);
      signal.addEventListener('abort', () => this.#live.delete(splice.token), { once: true });
    });
  }

  override send(message: JSONRPCMessage): Promise<void> {
    const result = (message as { result?: { structuredContent?: unknown } }).result;
    const token = RawJsonSplice.tokenOf(result?.structuredContent);
    const splice = token === null ? undefined : this.#live.get(token);
    if (!splice) return super.send(message);
    this.#live.delete(splice.token);
    const json = splice.splice(`${JSON.stringify(message)}\n`);
    // As the SDK's transport writes a message: resolved once the stream takes it or drains.
    return new Promise((resolve) => {
      if (this.#out.write(json)) resolve();
      else this.#out.once('drain', resolve);
    });
  }

  override async close(): Promise<void> {
    this.#live.clear();
    await super.close();
  }
}
