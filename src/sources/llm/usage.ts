/**
 * Tokens and cost of one LLM call, as the provider reported them: input, output, cached input and
 * reasoning tokens (each null, and named in `not_reported`, when the usage does not say it), read
 * from the trace's `usage_json` as `getLlmCall`'s `tokens`; and the call's cost by the operator's
 * price table (`NOEMA_LLM_PRICES`, a JSON file; none is built in), recorded when the call is made as
 * its `cost` artifact (prices change: a call keeps what it cost then).
 */
import { readFileSync, statSync } from 'node:fs';
import { validateCompiled } from '../../core/compiled-validators.ts';

export interface ModelPrice {
  /** Per million input tokens (cached ones included, unless `cached_input_per_mtok` is set). */
  input_per_mtok: number;
  /** Per million output tokens (reasoning tokens are output tokens). */
  output_per_mtok: number;
  /** Per million cached input tokens; the input price when unset. */
  cached_input_per_mtok?: number;
}

export interface PriceTable {
  currency: string;
  /** By model name, as the endpoint resolved it (`gpt-4o-mini`, `anthropic/claude-sonnet-4.5`). */
  models: Record<string, ModelPrice>;
}

const PRICE = {
  type: 'object',
  required: ['input_per_mtok', 'output_per_mtok'],
  additionalProperties: false,
  properties: {
    input_per_mtok: { type: 'number', minimum: 0 },
    output_per_mtok: { type: 'number', minimum: 0 },
    cached_input_per_mtok: { type: 'number', minimum: 0 },
  },
} as const;

const TABLE = {
  type: 'object',
  required: ['currency', 'models'],
  additionalProperties: false,
  properties: {
    currency: { type: 'string', pattern: '^[A-Z]{3}$' },
    models: { type: 'object', additionalProperties: PRICE },
  },
} as const;

export interface CallTokens {
  input: number | null;
  output: number | null;
  cached: number | null;
  reasoning: number | null;
  /** The counts the provider did not report. */
  not_reported: Array<'input' | 'output' | 'cached' | 'reasoning'>;
  /** The cost the provider itself reported (OpenRouter's `usage.cost`), when it did. */
  provider_cost?: number;
}

/** What a call cost by the price table when it was made; null `amount` with `unknown` saying why. */
export interface CallCost {
  model: string;
  amount: number | null;
  currency: string;
  unknown?: string;
}

const count = (v: unknown): number | null =>
  typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : null;

/** The call's tokens from the stream's `usage` (OpenAI's names, or `input_tokens` / `output_tokens`). */
export function tokensOf(usage: Record<string, unknown> | null): CallTokens {
  const u = usage ?? {};
  const inDetails = (u.prompt_tokens_details ?? u.input_tokens_details ?? {}) as Record<string, unknown>;
  const outDetails = (u.completion_tokens_details ?? u.output_tokens_details ?? {}) as Record<
    string,
    unknown
  >;
  const t: CallTokens = {
    input: count(u.prompt_tokens ?? u.input_tokens),
    output: count(u.completion_tokens ?? u.output_tokens),
    cached: count(inDetails?.cached_tokens),
    reasoning: count(outDetails?.reasoning_tokens),
    not_reported: [],
  };
  for (const k of ['input', 'output', 'cached', 'reasoning'] as const)
    if (t[k] === null) t.not_reported.push(k);
  const providerCost = count(u.cost);
  if (providerCost !== null) t.provider_cost = providerCost;
  return t;
}

/** The call's cost by `prices` for `model`: cached input at its own price, reasoning as output. */
export function costOf(usage: Record<string, unknown> | null, model: string, prices: PriceTable): CallCost {
  const t = tokensOf(usage);
  const price = prices.models[model];
  const none = (unknown: string): CallCost => ({ model, amount: null, currency: prices.currency, unknown });
  if (!price) return none(`no price for model "${model}" in NOEMA_LLM_PRICES`);
  if (t.input === null || t.output === null)
    return none('the provider did not report input and output tokens');
  const cached = Math.min(t.cached ?? 0, t.input);
  const amount =
    ((t.input - cached) * price.input_per_mtok +
      cached * (price.cached_input_per_mtok ?? price.input_per_mtok) +
      t.output * price.output_per_mtok) /
    1_000_000;
  return { model, amount: Math.round(amount * 1e9) / 1e9, currency: prices.currency };
}

export type PriceRead = { ok: true; table: PriceTable | null } | { ok: false; message: string };

let cached: { path: string; mtimeMs: number; size: number; read: PriceRead } | null = null;

/**
 * The price table named by NOEMA_LLM_PRICES (null when unset), read again only when the file
 * changed. A missing or malformed file is a message naming the setting.
 */
export function readPrices(path: string | undefined): PriceRead {
  if (path === undefined || path === '') return { ok: true, table: null };
  let stat: { mtimeMs: number; size: number };
  try {
    stat = statSync(path);
  } catch {
    return { ok: false, message: `NOEMA_LLM_PRICES is invalid: ${path} cannot be read` };
  }
  if (cached && cached.path === path && cached.mtimeMs === stat.mtimeMs && cached.size === stat.size)
    return cached.read;
  let read: PriceRead;
  try {
    const r = validateCompiled<PriceTable>(TABLE, JSON.parse(readFileSync(path, 'utf8')));
    read = r.ok
      ? { ok: true, table: r.value }
      : {
          ok: false,
          message:
            `NOEMA_LLM_PRICES is invalid: ${path}: ${r.errors[0]?.path ?? ''} ${r.errors[0]?.message ?? ''}`.trim(),
        };
  } catch (err) {
    read = {
      ok: false,
      message: `NOEMA_LLM_PRICES is invalid: ${path} is not JSON (${(err as Error).message})`,
    };
  }
  cached = { path, mtimeMs: stat.mtimeMs, size: stat.size, read };
  return read;
}
