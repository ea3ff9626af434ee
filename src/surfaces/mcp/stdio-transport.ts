/**
 * MCP over stdio with stored JSON spliced into the answers (`raw-json.ts`), as MCP over HTTP
 * does: a call's result may carry stand-ins for its structured content and its text (`spliceFor`),
 * and the message that answers it is written with the stored JSON in their place. A splice is kept from its first
 * stand-in until its answer is written, or its call is cancelled (the SDK then writes no answer), or
 * the transport closes.
 */
import { Socket } from 'node:net';
import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { giveBack, takeBytes } from '../../core/byte-pool.ts';
import { RawJsonSplice } from './raw-json.ts';

export class SplicingStdioTransport extends StdioServerTransport {
  readonly #out: Writable;
  /**
   * Whether an answer's memory can be pooled: a write's callback says its bytes are the operating
   * system's only for a stream over a file descriptor (a socket, a pipe, a terminal, a file); another
   * stream (a `PassThrough`) may still hold the very buffer it was handed.
   */
  readonly #pooled: boolean;
  /** Splices with a stand-in handed out and no answer written yet, by token. */
  readonly #live = new Map<string, RawJsonSplice>();

  constructor(stdin: Readable = process.stdin, stdout: Writable = process.stdout) {
    super(stdin, stdout);
    this.#out = stdout;
    this.#pooled = stdout === process.stdout || stdout instanceof Socket;
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
    // In pooled memory (`byte-pool.ts`) where the stream says when it is written out: given back then.
    const pooled = this.#pooled;
    const json = splice.splice(`${JSON.stringify(message)}\n`, pooled ? takeBytes : undefined);
    const written = (err?: Error | null) => {
      if (pooled && !err) giveBack(json);
    };
    // As the SDK's transport writes a message: resolved once the stream takes it or drains.
    return new Promise((resolve) => {
      if (this.#out.write(json, written)) resolve();
      else this.#out.once('drain', resolve);
    });
  }

  override async close(): Promise<void> {
    this.#live.clear();
    await super.close();
  }
}
