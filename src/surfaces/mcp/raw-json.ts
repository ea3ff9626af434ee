/**
 * Stored JSON sent as it is inside an MCP answer. The SDK serializes a whole JSON-RPC message with
 * `JSON.stringify`, so a tool result whose structured content already exists as JSON (a world's
 * `get_world`, spliced from its snapshot's stored text) would be parsed into objects only to be
 * serialized again — for 10 000 entities most of the answer's cost — and its text content (the same
 * JSON as a string) decoded from UTF-8 and escaped by `JSON.stringify`. A transport whose answer
 * Noema writes itself (MCP over HTTP, its JSON answers and event streams; stdio, `stdio-transport.ts`) gives the
 * dispatcher a `RawJsonSplice`: the result's structured content and text go to the SDK as stand-ins,
 * and the answer's bytes are the serialized message with each stand-in replaced — an object's by the
 * stored bytes as they are, a string's by those bytes escaped as a JSON string, byte by byte.
 *
 * An object's stand-in is `{"<token><n>":0}`, a string's `"<token>t<n>"`, the token random per splice
 * (never seen outside the process, so no client-supplied or stored text can hold it); `JSON.stringify`
 * writes both exactly so, and within another string their quotes would be escaped.
 */
import { isAscii } from 'node:buffer';
import { randomUUID } from 'node:crypto';
import { giveBack } from '../../core/byte-pool.ts';
import { escapeRange } from '../../core/json-escape.ts';

const PREFIX = 'noema-raw-json:';

/** Stored JSON as the UTF-8 bytes of its text, in pieces to write in order (views: never written into). */
export type JsonPieces = readonly Uint8Array[];

/**
 * A message's text cut at its stand-ins: its own text, and the stored JSON to put in between (as a
 * string: with its text already escaped, when its maker had that).
 */
type Part = string | { json: JsonPieces; asString: boolean; escaped: JsonPieces | null };

/**
 * The text of stored JSON already escaped as a JSON string's inside (no quotes, by `json-escape.ts`,
 * so a text it answers held no control character), made when asked: what a cache of escaped text
 * answers, or null when it has none (the splice then escapes the JSON itself).
 */
export type Escaped = () => JsonPieces | null;

/** Stored JSON a stand-in stands for, with its text escaped if its maker has it. */
interface Stored {
  json: JsonPieces;
  escaped: Escaped | undefined;
}

const QUOTE = 0x22;

/**
 * Writes `json`'s text into `out` at `at` as a JSON string (quotes included), escaped as
 * `JSON.stringify` escapes it (`json-escape.ts`). Returns where it ended, or -1 at a control
 * character (the caller then escapes it the slow way).
 */
function escapeInto(json: JsonPieces, out: Uint8Array, at: number): number {
  let o = at;
  out[o++] = QUOTE;
  for (let p = 0; p < json.length && o >= 0; p++) o = escapeRange(json[p]!, 0, json[p]!.length, out, o);
  if (o < 0) return -1;
  out[o++] = QUOTE;
  return o;
}

function byteLength(json: JsonPieces): number {
  let n = 0;
  for (let p = 0; p < json.length; p++) n += json[p]!.length;
  return n;
}

/** `json`'s text decoded (as `Buffer#toString` would; ASCII, the common case, copied as it is). */
export function jsonText(json: JsonPieces): string {
  const one = json.length === 1 ? json[0]! : null;
  // One piece is read in place (`Buffer.from` of a Uint8Array would copy it).
  const bytes = one ? Buffer.from(one.buffer, one.byteOffset, one.byteLength) : Buffer.concat(json);
  // UTF-8 decoding checks every byte; ASCII text is the same string read as Latin-1, a copy.
  return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}

export class RawJsonSplice {
  /** What every stand-in's key starts with, unique to this splice. */
  readonly token = `${PREFIX}${randomUUID()}#`;
  readonly #json: Stored[] = [];
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
    return this.#json.length > 0;
  }

  #add(json: JsonPieces, escaped?: Escaped): number {
    const n = this.#json.push({ json, escaped }) - 1;
    if (n === 0) this.#onFirstUse?.(this);
    return n;
  }

  /** A stand-in for the JSON object `json`, to put where that object goes in a message. */
  standIn(json: JsonPieces): Record<string, unknown> {
    return { [`${this.token}${this.#add(json)}`]: 0 };
  }

  /**
   * A stand-in for `json`'s text as a string (an MCP text content's `text`), to put where it goes;
   * `escaped`, if given, may answer that text already escaped.
   */
  standInText(json: JsonPieces, escaped?: Escaped): string {
    return `${this.token}t${this.#add(json, escaped)}`;
  }

  /**
   * The bytes of `body` (a message's JSON text) with each stand-in replaced by what it stands for,
   * written into memory from `take` (`takeBytes`, for a transport that gives it back once the
   * bytes are sent: `byte-pool.ts`; a buffer of their own by default).
   */
  splice(body: string, take: (length: number) => Buffer = Buffer.allocUnsafe): Buffer {
    const parts = this.#cut(body);
    if (parts.length === 1) return Buffer.from(body);
    return assemble(parts, take) ?? assembleSlowly(parts);
  }

  /** `body` cut at its stand-ins (a token elsewhere — escaped inside a string — is left in place). */
  #cut(body: string): Part[] {
    const { token } = this;
    const parts: Part[] = [];
    let from = 0;
    for (let at = body.indexOf(token); at !== -1; at = body.indexOf(token, at + token.length)) {
      const rest = at + token.length;
      const asString = body[rest] === 't';
      let start: number;
      let end: number;
      let n: number;
      if (asString) {
        // `"<token>t<n>"`, its opening quote not an escaped one.
        if (body[at - 1] !== '"' || body[at - 2] === '\\') continue;
        const close = body.indexOf('"', rest);
        start = at - 1;
        end = close + 1;
        n = close === -1 ? Number.NaN : Number(body.slice(rest + 1, close));
      } else {
        // `{"<token><n>":0}`: an object's only key.
        if (body[at - 1] !== '"' || body[at - 2] !== '{') continue;
        const close = body.indexOf('":0}', rest);
        start = at - 2;
        end = close + 4;
        n = close === -1 ? Number.NaN : Number(body.slice(rest, close));
      }
      const stored = Number.isInteger(n) ? this.#json[n] : undefined;
      if (stored === undefined) throw new Error('MCP answer: a raw JSON stand-in without its text');
      const escaped = asString ? (stored.escaped?.() ?? null) : null;
      parts.push(body.slice(from, start), { json: stored.json, asString, escaped });
      from = end;
    }
    parts.push(body.slice(from));
    return parts;
  }
}

/** Whether `json`'s bytes hold a control character (a raw line break would cut a line-framed answer). */
function hasControl(json: JsonPieces): boolean {
  for (let p = 0; p < json.length; p++) {
    const piece = json[p]!;
    for (let i = 0; i < piece.length; i++) if (piece[i]! < 0x20) return true;
  }
  return false;
}

/**
 * The parts' bytes in one buffer from `take`, or null if a stored text holds a control character
 * (the buffer then given back). Stored JSON is copied as it is only without one: answers are framed
 * by lines (stdio, an event stream's `data:`).
 */
function assemble(parts: Part[], take: (length: number) => Buffer): Buffer | null {
  let size = 0;
  for (const part of parts) {
    if (typeof part === 'string') size += Buffer.byteLength(part);
    else if (!part.asString) size += byteLength(part.json);
    else size += part.escaped ? byteLength(part.escaped) + 2 : 2 * byteLength(part.json) + 2;
  }
  const out = take(size);
  /** Stored JSON already escaped: its bytes were checked then (escaped text is made only of such). */
  const checked = new Set<JsonPieces>();
  let at = 0;
  for (const part of parts) {
    if (typeof part === 'string') at += out.write(part, at);
    else if (part.asString) {
      if (part.escaped) {
        out[at++] = QUOTE;
        at = copyInto(part.escaped, out, at);
        out[at++] = QUOTE;
      } else {
        at = escapeInto(part.json, out, at);
        if (at < 0) return gaveBack(out);
      }
      checked.add(part.json);
    } else {
      if (!checked.has(part.json) && hasControl(part.json)) return gaveBack(out);
      at = copyInto(part.json, out, at);
    }
  }
  return out.subarray(0, at);
}

function copyInto(json: JsonPieces, out: Uint8Array, at: number): number {
  let o = at;
  for (let p = 0; p < json.length; p++) {
    out.set(json[p]!, o);
    o += json[p]!.length;
  }
  return o;
}

function gaveBack(out: Buffer): null {
  giveBack(out);
  return null;
}

/**
 * The same, each string escaped by `JSON.stringify`, and stored JSON holding a control character
 * written again by it (whitespace between its tokens dropped).
 */
function assembleSlowly(parts: Part[]): Buffer {
  return Buffer.concat(
    parts.flatMap((part) => {
      if (typeof part === 'string') return [Buffer.from(part)];
      if (part.asString) return [Buffer.from(JSON.stringify(jsonText(part.json)))];
      return hasControl(part.json)
        ? [Buffer.from(JSON.stringify(JSON.parse(jsonText(part.json))))]
        : part.json;
    }),
  );
}
