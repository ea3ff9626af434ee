/**
 * Request bodies: every body is read under one limit (Hono's bodyLimit, in `app.ts`); over it is a
 * 413 `PAYLOAD_TOO_LARGE` envelope, decided from `content-length` before reading when the client
 * sends one, otherwise while reading.
 */
import { invalidInput, NoemaError } from '../../core/errors.ts';
import { assertJsonDepth } from '../../core/json-depth.ts';
import { type JsonSchema, schemas } from '../../core/schema-registry.ts';

/** Every body, including MCP calls on `/mcp` and `/mcp/:catalog`, is capped at 4 MiB. */
export const MAX_BODY_BYTES = 4 * 1024 * 1024;

export function tooLarge(): NoemaError {
  return new NoemaError('PAYLOAD_TOO_LARGE', `request body exceeds ${MAX_BODY_BYTES} bytes`, {
    status: 413,
    details: { max_bytes: MAX_BODY_BYTES },
    hint: 'send a smaller body (large documents belong in several calls)',
  });
}

/**
 * Parses and (with `schema`) validates a JSON body already read under the limit; empty is
 * `undefined`; nested deeper than `MAX_JSON_DEPTH` (64) is INVALID_INPUT.
 */
export function parseJsonBody(text: string, schema?: JsonSchema): unknown {
  if (text.trim() === '') {
    if (schema === undefined) return undefined;
    throw invalidInput('a JSON body is required', {}, 'send a JSON body');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalidInput('request body is not valid JSON', {}, 'send a JSON body');
  }
  // Before the schema: validators and handlers recurse, and must never meet unbounded nesting.
  assertJsonDepth(value, 'request body');
  if (schema !== undefined) {
    const result = schemas.compile(schema).validate(value);
    if (!result.ok) {
      throw invalidInput('request body does not match the route schema', { errors: result.errors });
    }
  }
  return value;
}

/** The part of the node:http request the limit reads (Hono's node bindings). */
interface IncomingLike {
  on(event: 'data', listener: (chunk: Buffer) => void): unknown;
  once(event: 'end' | 'error' | 'aborted', listener: (err?: unknown) => void): unknown;
  readableEnded: boolean;
}

/**
 * Reads a request body from the node stream under the limit. Over it — by `content-length`
 * (nothing read; Node discards the body after the response) or while reading (the rest is read and
 * discarded) — throws the 413 error; the connection survives so the client reads the envelope.
 * Resolves with the whole body when it fits.
 */
export function readIncomingBody(
  incoming: IncomingLike,
  contentLength: string | undefined,
  limit = MAX_BODY_BYTES,
): Promise<Buffer> {
  if (contentLength !== undefined && Number(contentLength) > limit) return Promise.reject(tooLarge());
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let over = false;
    incoming.on('data', (chunk) => {
      if (over) return;
      size += chunk.length;
      if (size > limit) {
        over = true;
        chunks.length = 0;
        reject(tooLarge());
      } else chunks.push(chunk);
    });
    incoming.once('end', () => resolve(Buffer.concat(chunks)));
    incoming.once('error', (err) => reject(err));
    incoming.once('aborted', () =>
      reject(Object.assign(new Error('client aborted the request'), { code: 'ECONNRESET' })),
    );
  });
}
