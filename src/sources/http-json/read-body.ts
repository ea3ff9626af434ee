/** Reads an HTTP response body as text, bounded. */
import { SourceFailure } from '../failure.ts';
import type { HttpReply } from '../http-transport.ts';

export const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

export async function readBoundedText(res: HttpReply, what: string): Promise<string> {
  const declared = Number(res.header('content-length') ?? '0');
  if (declared > MAX_RESPONSE_BYTES) {
    res.cancel();
    throw new SourceFailure('protocol', `${what} response is too large (${declared} bytes)`, {
      response: { http_status: res.status, response_headers: res.headers() },
    });
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (let chunk = await res.read(); chunk !== null; chunk = await res.read()) {
    size += chunk.byteLength;
    if (size > MAX_RESPONSE_BYTES) {
      res.cancel();
      throw new SourceFailure('protocol', `${what} response exceeds ${MAX_RESPONSE_BYTES} bytes`, {
        response: { http_status: res.status, response_headers: res.headers() },
      });
    }
    chunks.push(chunk);
  }
  return chunks.length === 1
    ? Buffer.from(chunks[0]!).toString('utf8')
    : Buffer.concat(chunks).toString('utf8');
}

export function tryParseJson(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}
