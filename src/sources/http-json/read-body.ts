/** Reads an HTTP response body as text, bounded, and its headers as a plain object. */
import { SourceFailure } from '../failure.ts';

export const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

export function headersObject(h: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  h.forEach((v, k) => {
    out[k] = v;
  });
  return out;
}

export async function readBoundedText(res: Response, what: string): Promise<string> {
  const declared = Number(res.headers.get('content-length') ?? '0');
  if (declared > MAX_RESPONSE_BYTES) {
    throw new SourceFailure('protocol', `${what} response is too large (${declared} bytes)`, {
      response: { http_status: res.status, response_headers: headersObject(res.headers) },
    });
  }
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_RESPONSE_BYTES) {
      await reader.cancel();
      throw new SourceFailure('protocol', `${what} response exceeds ${MAX_RESPONSE_BYTES} bytes`, {
        response: { http_status: res.status, response_headers: headersObject(res.headers) },
      });
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function tryParseJson(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}
