/**
 * Request bodies: every body is read under one limit (Hono's bodyLimit, in `app.ts`); over it is a
 * 413 `PAYLOAD_TOO_LARGE` envelope, decided from `content-length` before reading when the client
 * sends one, otherwise while reading.
 */
import { invalidInput, NoemaError } from '../../core/errors.ts';
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

/** Parses and (with `schema`) validates a JSON body already read under the limit; empty is `undefined`. */
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
  if (schema !== undefined) {
    const result = schemas.compile(schema).validate(value);
    if (!result.ok) {
      throw invalidInput('request body does not match the route schema', { errors: result.errors });
    }
  }
  return value;
}
