/**
 * W3C trace context for Noema's records: a run's trace and span ids derived from its ids (so any
 * process that resumes the run continues the same trace without asking anyone), `traceparent`
 * parsed and written, and the incoming context of the request being served.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { hash } from 'node:crypto';

export interface SpanRef {
  traceId: string;
  spanId: string;
  sampled: boolean;
  /**
   * Whether the span is another process's: a caller's (an incoming `traceparent`), or the run span
   * of a run this process resumed but did not create. As a parent, the span's `isRemote`.
   */
  remote: boolean;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(?:-.*)?$/;

/** A `traceparent` header's parent, or null when absent or malformed (W3C: then ignored). */
export function parseTraceparent(header: string | null | undefined): SpanRef | null {
  const m = header ? TRACEPARENT.exec(header.trim().toLowerCase()) : null;
  if (!m || m[1] === 'ff') return null;
  if (/^0+$/.test(m[2]!) || /^0+$/.test(m[3]!)) return null;
  return {
    traceId: m[2]!,
    spanId: m[3]!,
    sampled: (Number.parseInt(m[4]!, 16) & 1) === 1,
    remote: true,
  };
}

export function formatTraceparent(ref: Omit<SpanRef, 'remote'>): string {
  return `00-${ref.traceId}-${ref.spanId}-${ref.sampled ? '01' : '00'}`;
}

/** A trace id derived from `text` (an id that is not a uuid: rare): 32 hex digits of its SHA-256. */
function hex(text: string, chars: number): string {
  const h = hash('sha256', text, 'hex').slice(0, chars);
  // An all-zero id is invalid; a sha256 prefix of zeros is not going to happen, but stay valid.
  return /^0+$/.test(h) ? `${'0'.repeat(chars - 1)}1` : h;
}

/** The character codes of the hex digits. */
const HEX_CODES = Array.from('0123456789abcdef', (c) => c.charCodeAt(0));

/** The two lanes as 16 hex digits, made as one flat string (no pieces joined). */
function hex64(hi: number, lo: number): string {
  const d = (n: number, shift: number) => HEX_CODES[(n >>> shift) & 15]!;
  return String.fromCharCode(
    d(hi, 28),
    d(hi, 24),
    d(hi, 20),
    d(hi, 16),
    d(hi, 12),
    d(hi, 8),
    d(hi, 4),
    d(hi, 0),
    d(lo, 28),
    d(lo, 24),
    d(lo, 20),
    d(lo, 16),
    d(lo, 12),
    d(lo, 8),
    d(lo, 4),
    d(lo, 0),
  );
}

/**
 * A span id derived from the text `parts` make when joined: 16 hex digits of a 64-bit hash
 * (cyrb53's two 32-bit lanes, kept whole). A span id must be the same in every process that
 * derives it and unique within its trace (a few thousand spans), not secret: a JavaScript hash costs
 * a tenth of a SHA-256 call, and a world turn derives about 600 of them. The parts are hashed one
 * after another, as their joined text would be, without joining them. Its constants are cyrb53's
 * written as signed 32-bit integers (the same bits): as numbers above 2^31 they made every
 * `Math.imul` convert a double, and the id cost 2.5 times as much.
 */
function spanId(...parts: string[]): string {
  let h1 = 0xdeadbeef | 0;
  let h2 = 0x41c6ce57;
  for (let p = 0; p < parts.length; p++) {
    const text = parts[p]!;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      h1 = Math.imul(h1 ^ c, -1640531535); // 2654435761
      h2 = Math.imul(h2 ^ c, 1597334677);
    }
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), -2048144789) ^ Math.imul(h2 ^ (h2 >>> 13), -1028477387); // 2246822507, 3266489909
  h2 = Math.imul(h2 ^ (h2 >>> 16), -2048144789) ^ Math.imul(h1 ^ (h1 >>> 13), -1028477387);
  // An all-zero id is invalid.
  if (h1 === 0 && h2 === 0) return '0000000000000001';
  return hex64(h2, h1);
}

/** The trace id of a run started without an incoming parent: its uuid's 32 hex digits. */
export function runTraceId(run_id: string): string {
  const id = run_id.replaceAll('-', '').toLowerCase();
  return /^[0-9a-f]{32}$/.test(id) && !/^0+$/.test(id) ? id : hex(`trace:${run_id}`, 32);
}

export function runSpanId(run_id: string): string {
  return spanId('run:', run_id);
}

export function nodeSpanId(run_id: string, node_id: string, step: number, attempt: number): string {
  return spanId('node:', run_id, ':', node_id, ':', String(step), ':', String(attempt));
}

export function invocationSpanId(source_invocation_id: string): string {
  return spanId('invocation:', source_invocation_id);
}

/** The trace context of the HTTP request (or MCP call) being served, set by the surface's middleware. */
export const incoming = new AsyncLocalStorage<SpanRef>();

/** Runs `fn` with `traceparent` as the incoming parent (a malformed or absent one: no parent). */
export function withIncomingTraceparent<T>(traceparent: string | null | undefined, fn: () => T): T {
  const parent = parseTraceparent(traceparent);
  return parent ? incoming.run(parent, fn) : fn();
}
