/**
 * The one redaction module: every value written to a source record passes through a Redactor.
 * It blanks credential headers and JSON fields by name, and every configured secret value
 * wherever it appears in text (headers, bodies, chunks, error messages). It also replaces NUL
 * characters, which PostgreSQL text columns refuse.
 */

import { setOwn } from '../core/own.ts';

export const REDACTED = '[REDACTED]';
/** What a NUL character in any recorded text becomes (U+FFFD, the replacement character). */
export const NUL_REPLACEMENT = '\uFFFD';

const SECRET_NAMES = new Set([
  'authorization',
  'proxy-authorization',
  'x-api-key',
  'api-key',
  'api_key',
  'apikey',
  'cookie',
  'set-cookie',
  'x-auth-token',
  'password',
  'client_secret',
]);

// A quick scan of serialized JSON, one pass: when no secret-named key and no NUL character (escaped
// as `\u0000`) can be present, skip the walk.
const NEEDS_WALK = new RegExp(`"(?:${[...SECRET_NAMES].join('|')})"|\\\\u0000`, 'i');

// Environment variables whose values are treated as configured secrets.
const SECRET_ENV = /(_API_KEY|_KEY|_TOKEN|_SECRET|_PASSWORD)$/;
const MIN_SECRET_LENGTH = 6;

export interface Redactor {
  text(s: string): string;
  /** A deep copy of `value` with secret fields and secret substrings replaced. */
  json<T>(value: T): T;
  /** `JSON.stringify(json(value))`, without the deep copy when nothing in it can be secret. */
  jsonText(value: unknown): string;
  /** `jsonText(value)`, and whether `value` needed no redaction (then `clean(value)` is `value`). */
  jsonTextChecked(value: unknown): { text: string; clean: boolean };
  /** `value` itself when nothing in it can be secret, else `json(value)`. */
  clean<T>(value: T): T;
  headers(h: Record<string, string>): Record<string, string>;
  /** `JSON.stringify(headers(h))`, without the copy when nothing in them can be secret. */
  headersText(h: Record<string, string>): string;
  /**
   * A rolling window over one streamed text (a reply arriving in pieces): what it lets through,
   * joined, never holds a secret, however the pieces split it. Each piece's end is held back while
   * it could be the start of a secret (at most the longest secret's length less one character).
   */
  stream(): TextWindow;
}

/** See `Redactor.stream`. */
export interface TextWindow {
  /** The redacted text that `piece` (after what was held) lets through now; the rest is held. */
  push(piece: string): string;
  /** Everything still held, redacted: the end of the stream (no text is lost). */
  end(): string;
  /** How many characters are held back now. */
  readonly held: number;
}

export function isSecretName(name: string): boolean {
  return SECRET_NAMES.has(name.toLowerCase());
}

/** Configured secret values: every env var named like a key, token, secret or password. */
export function secretsFromEnv(env: Readonly<Record<string, string | undefined>>): string[] {
  // Reading process.env goes through a native getter per variable; remember it briefly.
  if (env === process.env && processEnvCache && Date.now() - processEnvCache.at < PROCESS_ENV_TTL_MS) {
    return processEnvCache.secrets;
  }
  const out: string[] = [];
  for (const name in env) {
    const v = env[name];
    if (v && v.length >= MIN_SECRET_LENGTH && SECRET_ENV.test(name)) out.push(v);
  }
  if (env === process.env) processEnvCache = { at: Date.now(), secrets: out };
  return out;
}

const PROCESS_ENV_TTL_MS = 1_000;
let processEnvCache: { at: number; secrets: string[] } | null = null;

export function createRedactor(secrets: readonly string[]): Redactor {
  // Longest first, so a secret containing another is replaced whole.
  const values = [...new Set(secrets.filter((s) => s.length >= MIN_SECRET_LENGTH))].sort(
    (a, b) => b.length - a.length,
  );
  // A redactor holds no state but its secrets: calls without secrets share one.
  return values.length === 0 ? NO_SECRETS : buildRedactor(values);
}

function buildRedactor(values: readonly string[]): Redactor {
  // Each secret as written, as JSON text writes it (a quote, backslash or control character
  // escaped: a JSON body) and as JSON text inside JSON text (a JSON reply in a streamed event);
  // longest first. For a secret with nothing to escape the three are one.
  const forms = [...new Set(values.flatMap((v) => [v, escaped(v), escaped(escaped(v))]))].sort(
    (a, b) => b.length - a.length,
  );
  const text = (s: string): string => {
    let out = s;
    for (const v of forms) if (out.includes(v)) out = out.split(v).join(REDACTED);
    // PostgreSQL text cannot hold NUL (error 22021); one place for every value written.
    if (out.includes('\u0000')) out = out.replaceAll('\u0000', NUL_REPLACEMENT);
    return out;
  };
  const json = <T>(value: T): T => walk(value, text) as T;
  const headers = (h: Record<string, string>): Record<string, string> => {
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(h)) setOwn(out, k, isSecretName(k) ? REDACTED : text(v));
    return out;
  };
  const secretFree = (raw: string) => !NEEDS_WALK.test(raw) && !forms.some((v) => raw.includes(v));
  const jsonTextChecked = (value: unknown): { text: string; clean: boolean } => {
    const raw = JSON.stringify(value ?? null);
    return secretFree(raw)
      ? { text: raw, clean: true }
      : { text: JSON.stringify(json(value ?? null)), clean: false };
  };
  const jsonText = (value: unknown): string => {
    const raw = JSON.stringify(value ?? null);
    return secretFree(raw) ? raw : JSON.stringify(json(value ?? null));
  };
  const clean = <T>(value: T): T =>
    value === undefined || secretFree(JSON.stringify(value)) ? value : json(value);
  const headersText = (h: Record<string, string>): string => {
    const raw = JSON.stringify(h);
    return secretFree(raw) ? raw : JSON.stringify(headers(h));
  };
  const stream = (): TextWindow => textWindow(forms, text);
  return { text, json, jsonText, jsonTextChecked, clean, headers, headersText, stream };
}

function textWindow(forms: readonly string[], text: (s: string) => string): TextWindow {
  let held = '';
  return {
    push(piece) {
      const out = text(held + piece);
      const keep = secretStartAtEnd(out, forms);
      held = out.slice(out.length - keep);
      return out.slice(0, out.length - keep);
    },
    end() {
      const out = held;
      held = '';
      return out;
    },
    get held() {
      return held.length;
    },
  };
}

/**
 * The length of the longest end of `s` that is the start (not the whole) of one of `forms`: those
 * characters may become a secret with the next piece. An occurrence that starts before them is
 * either complete (and already redacted) or would make a longer such end.
 */
function secretStartAtEnd(s: string, forms: readonly string[]): number {
  let longest = 0;
  for (const f of forms) {
    const first = f.charCodeAt(0);
    for (let n = Math.min(f.length - 1, s.length); n > longest; n--) {
      if (s.charCodeAt(s.length - n) === first && s.endsWith(f.slice(0, n))) {
        longest = n;
        break;
      }
    }
  }
  return longest;
}

const NO_SECRETS = buildRedactor([]);

/** `s` as it reads inside a JSON string. */
const escaped = (s: string): string => JSON.stringify(s).slice(1, -1);

function walk(value: unknown, text: (s: string) => string): unknown {
  if (typeof value === 'string') return text(value);
  if (Array.isArray(value)) return value.map((v) => walk(v, text));
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value))
      setOwn(out, text(k), isSecretName(k) ? REDACTED : walk(v, text));
    return out;
  }
  return value;
}
