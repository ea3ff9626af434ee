/**
 * The LLM settings read from the operator's environment beside the base URL and key: each
 * endpoint's provider (`NOEMA_LLM_PROVIDER`, `NOEMA_LLM_<NAME>_PROVIDER`) and default token limit
 * (`NOEMA_LLM_MAX_TOKENS`, `NOEMA_LLM_<NAME>_MAX_TOKENS`), and the price table (`NOEMA_LLM_PRICES`). `checkLlmSettings` checks every one that
 * is set when a process starts (a one-line `CONFIG_INVALID` naming the setting, before anything is
 * created); a call reads its endpoint's again and fails `not_configured` on a bad value.
 */
import { NoemaError } from '../../core/errors.ts';
import { isProviderName, PROVIDERS, type ProviderName } from './providers.ts';
import { readPrices } from './usage.ts';

type Env = Readonly<Record<string, string | undefined>>;

/** The largest token limit accepted: any real model's output limit is far below it. */
export const MAX_TOKEN_LIMIT = 10_000_000;

export type Setting<T> = { ok: true; value: T } | { ok: false; message: string };

export function readProvider(env: Env, variable: string): Setting<ProviderName> {
  const raw = env[variable];
  if (raw === undefined || raw === '') return { ok: true, value: 'generic' };
  const value = raw.trim().toLowerCase();
  if (isProviderName(value)) return { ok: true, value };
  return {
    ok: false,
    message: `${variable} is invalid: "${raw}" is not a provider (${PROVIDERS.join(', ')})`,
  };
}

export function readTokenLimit(env: Env, variable: string): Setting<number | undefined> {
  const raw = env[variable];
  if (raw === undefined || raw === '') return { ok: true, value: undefined };
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || n < 1 || n > MAX_TOKEN_LIMIT) {
    return {
      ok: false,
      message: `${variable} is invalid: "${raw}" is not a token count (1-${MAX_TOKEN_LIMIT})`,
    };
  }
  return { ok: true, value: n };
}

/** The environment variables that hold a provider or a token limit, for the default and named endpoints. */
const SETTING = /^NOEMA_LLM_(?:([A-Z][A-Z0-9_]*)_)?(PROVIDER|MAX_TOKENS)$/;

/**
 * Checks every LLM provider and token-limit setting in `env`; throws `CONFIG_INVALID` naming the
 * first bad one. Called where the process's configuration is loaded.
 */
export function checkLlmSettings(env: Env): void {
  for (const variable of Object.keys(env).sort()) {
    const m = SETTING.exec(variable);
    // NOEMA_LLM_MODEL_<ALIAS> names models, never a provider: NOEMA_LLM_MODEL_PROVIDER is a model alias.
    if (!m || m[1] === 'MODEL' || m[1]?.startsWith('MODEL_')) continue;
    const r = m[2] === 'PROVIDER' ? readProvider(env, variable) : readTokenLimit(env, variable);
    if (!r.ok) throw new NoemaError('CONFIG_INVALID', r.message, { details: { setting: variable } });
  }
  const prices = readPrices(env.NOEMA_LLM_PRICES);
  if (!prices.ok) {
    throw new NoemaError('CONFIG_INVALID', prices.message, { details: { setting: 'NOEMA_LLM_PRICES' } });
  }
}
