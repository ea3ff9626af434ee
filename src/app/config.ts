/**
 * Process configuration from flags and environment. Every setting has one name, shown in
 * README's configuration table; a bad value is a `CONFIG_INVALID` error naming it. What the
 * environment leaves unset is read from `<data dir>/dev.env` when `noema dev up` wrote one.
 */
import { dirname, resolve } from 'node:path';
import { NoemaError } from '../core/errors.ts';
import { checkLlmSettings, DEFAULT_RECOVERY_INTERVAL_MS } from '../sources/recovery.ts';
import { parseStoreTarget, type StoreTarget } from '../store/index.ts';
import { readDevEnv } from './dev-env.ts';

export interface NoemaConfig {
  store: StoreTarget;
  /** Where the token and other local state live. */
  dataDir: string;
  host: string;
  port: number;
  /** Set when the operator provided NOEMA_TOKEN; otherwise read or generated in `dataDir`. */
  token: string | undefined;
  /** How often long-running processes mark dead processes' calls `interrupted` (NOEMA_RECOVERY_INTERVAL_MS). */
  recoveryIntervalMs: number;
  /**
   * How long a run's lease lasts before another process may take the run over (NOEMA_RUN_LEASE_MS):
   * a process that dies leaves its runs to others this long after its last heartbeat.
   */
  runLeaseMs: number;
}

/** The engine's lease when NOEMA_RUN_LEASE_MS is not set. */
export const DEFAULT_RUN_LEASE_MS = 30_000;

export interface ConfigOverrides {
  db?: string | undefined;
  port?: string | undefined;
  dataDir?: string | undefined;
}

export function parsePort(value: string, setting: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isInteger(n) || n < 0 || n > 65_535) {
    throw new NoemaError(
      'CONFIG_INVALID',
      `${setting} is invalid: "${value}" is not a port number (0-65535)`,
      {
        details: { setting },
      },
    );
  }
  return n;
}

export function loadConfig(
  overrides: ConfigOverrides = {},
  env: NodeJS.ProcessEnv = process.env,
): NoemaConfig {
  const store = parseStoreTarget(
    overrides.db ?? env.NOEMA_DB,
    overrides.db !== undefined ? '--db' : 'NOEMA_DB',
  );
  const dataDir = resolve(
    overrides.dataDir ??
      env.NOEMA_DATA_DIR ??
      (store.kind === 'sqlite' && store.path !== ':memory:' ? dirname(store.path) : '.noema'),
  );
  readDevEnv(dataDir, env);
  const portRaw = overrides.port ?? env.NOEMA_PORT;
  const port =
    portRaw === undefined ? 8787 : parsePort(portRaw, overrides.port !== undefined ? '--port' : 'NOEMA_PORT');
  const token = env.NOEMA_TOKEN || undefined;
  if (token !== undefined && token.trim() !== token) {
    throw new NoemaError(
      'CONFIG_INVALID',
      token.trim() === ''
        ? 'NOEMA_TOKEN is invalid: it is only whitespace'
        : 'NOEMA_TOKEN is invalid: it starts or ends with whitespace',
      { details: { setting: 'NOEMA_TOKEN' } },
    );
  }
  if (token !== undefined && token.length < 16) {
    throw new NoemaError('CONFIG_INVALID', 'NOEMA_TOKEN is invalid: use at least 16 characters', {
      details: { setting: 'NOEMA_TOKEN' },
    });
  }
  const recoveryIntervalMs = parseMs(env.NOEMA_RECOVERY_INTERVAL_MS, 'NOEMA_RECOVERY_INTERVAL_MS', {
    fallback: DEFAULT_RECOVERY_INTERVAL_MS,
    min: 100,
    max: 86_400_000,
  });
  const runLeaseMs = parseMs(env.NOEMA_RUN_LEASE_MS, 'NOEMA_RUN_LEASE_MS', {
    fallback: DEFAULT_RUN_LEASE_MS,
    min: 1_000,
    max: 3_600_000,
  });
  // Each LLM endpoint's provider and token limit: a bad one is named before anything is created.
  checkLlmSettings(env);
  return { store, dataDir, host: '127.0.0.1', port, token, recoveryIntervalMs, runLeaseMs };
}

function parseMs(
  value: string | undefined,
  setting: string,
  { fallback, min, max }: { fallback: number; min: number; max: number },
): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) {
    throw new NoemaError(
      'CONFIG_INVALID',
      `${setting} is invalid: "${value}" is not a number of milliseconds (${min}-${max})`,
      {
        details: { setting },
      },
    );
  }
  return n;
}
