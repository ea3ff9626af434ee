/**
 * The recorded error bodies, usage and stream details of each provider (`recordings/<profile>.json`),
 * each file naming the public documentation (or official source) its shapes are taken from.
 */
import { readFileSync } from 'node:fs';
import type { ProviderName } from '../../sources/index.ts';

export interface RecordedError {
  status: number;
  headers?: Record<string, string>;
  body: unknown;
}

export interface Recording {
  profile: ProviderName;
  sources: string[];
  /** Model names `GET /models` lists when the fixture is not told which it serves. */
  models: string[];
  usage: Record<string, unknown>;
  /** The delta field reasoning chunks are sent in, for a provider that streams reasoning. */
  reasoning_field?: 'reasoning' | 'reasoning_content';
  /** A comment line the provider sends while it works (OpenRouter's `: OPENROUTER PROCESSING`). */
  comment?: string;
  /** llama.cpp's `timings` on the last chunk. */
  timings?: Record<string, unknown>;
  errors: Record<string, RecordedError>;
  /** The body of a refused request: `{message}`, `{code}`, `{param}` filled in. */
  rule_error: RecordedError;
  /** OpenAI's refusal text (`delta.refusal`), for the providers that stream one. */
  refusal?: string;
  /** The `error` of an event that ends a stream mid-way (OpenRouter's). */
  mid_stream_error?: Record<string, unknown>;
}

const cache = new Map<ProviderName, Recording>();

export function recordingOf(profile: ProviderName): Recording {
  let r = cache.get(profile);
  if (!r) {
    const file = profile === 'generic' ? 'openai' : profile;
    r = JSON.parse(readFileSync(new URL(`./recordings/${file}.json`, import.meta.url), 'utf8')) as Recording;
    cache.set(profile, r);
  }
  return r;
}

/** A copy of `body` with `{name}` placeholders in its strings filled in. */
export function fill(body: unknown, values: Record<string, string | null>): unknown {
  if (typeof body === 'string') {
    const whole = /^\{(\w+)\}$/.exec(body);
    if (whole && whole[1]! in values) return values[whole[1]!];
    return body.replace(/\{(\w+)\}/g, (m, k: string) => (k in values ? (values[k] ?? '') : m));
  }
  if (Array.isArray(body)) return body.map((b) => fill(b, values));
  if (body && typeof body === 'object') {
    return Object.fromEntries(Object.entries(body).map(([k, v]) => [k, fill(v, values)]));
  }
  return body;
}
