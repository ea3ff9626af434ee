/**
 * Stored JSON text sent as it is inside an MCP answer. The SDK serializes a whole JSON-RPC message
 * with `JSON.stringify`, so a tool result whose structured content already exists as JSON text (a
 * world's `get_world`, spliced from its snapshot's text) would be parsed into objects only to be
 * serialized again — for 10 000 entities most of the answer's cost. A transport whose answer Noema
 * writes as text (MCP over HTTP, its JSON answers; stdio, `stdio-transport.ts`) gives the dispatcher
 * a `RawJsonSplice`: a result's structured content goes to the SDK as a stand-in object, and the
 * answer's text has each stand-in replaced by the text it stands for.
 *
 * A stand-in is `{"<token>#<n>":0}`, the token random per splice (never seen outside the process,
 * so no client-supplied or stored text can hold it); `JSON.stringify` writes it exactly so.
 */
import { randomUUID } from 'node:crypto';

const PREFIX = 'noema-raw-json:';

export class RawJsonSplice {
  /** What every stand-in's key starts with, unique to this splice. */
  readonly token = `${PREFIX}${randomUUID()}#`;
  readonly #texts: string[] = [];
  readonly #onFirstUse: ((splice: RawJsonSplice) => void) | undefined;

  /** `onFirstUse`: called when the first stand-in is handed out. */
  constructor(onFirstUse?: (splice: RawJsonSplice) => void) {
    this.#onFirstUse = onFirstUse;
  }

  /** The token of the splice whose stand-in `value` is, or null when it is not one. */
  static tokenOf(value: unknown): string | null {
    if (typeof value !== 'object' || value === null) return null;
    const keys = Object.keys(value);
    if (keys.length !== 1 || !keys[0]!.startsWith(PREFIX)) return null;
    return keys[0]!.slice(0, keys[0]!.indexOf('#') + 1);
  }

  /** Whether any stand-in was handed out: an answer without one is sent as the SDK wrote it. */
  get used(): boolean {
    return this.#texts.length > 0;
  }

  /** A stand-in for `text`, a JSON object's text, to put where that object goes in a message. */
  standIn(text: string): Record<string, unknown> {
    const n = this.#texts.push(text) - 1;
    if (n === 0) this.#onFirstUse?.(this);
    return { [`${this.token}${n}`]: 0 };
  }

  /** `body` (a message's JSON text) with each stand-in replaced by the text it stands for. */
  splice(body: string): string {
    const open = `{"${this.token}`;
    const parts: string[] = [];
    let from = 0;
    for (let at = body.indexOf(open); at !== -1; at = body.indexOf(open, from)) {
      const close = body.indexOf('":0}', at + open.length);
      const n = Number(body.slice(at + open.length, close));
      const text = close === -1 ? undefined : this.#texts[n];
      if (text === undefined) throw new Error('MCP answer: a raw JSON stand-in without its text');
      parts.push(body.slice(from, at), text);
      from = close + 4;
    }
    if (from === 0) return body;
    parts.push(body.slice(from));
    return parts.join('');
  }
}
