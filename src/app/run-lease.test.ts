import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_RUN_LEASE_MS, loadConfig } from './config.ts';

test('NOEMA_RUN_LEASE_MS sets the run lease; a bad value is CONFIG_INVALID naming it', () => {
  const env = { NOEMA_DB: ':memory:' };
  assert.equal(loadConfig({}, env).runLeaseMs, DEFAULT_RUN_LEASE_MS);
  assert.equal(loadConfig({}, { ...env, NOEMA_RUN_LEASE_MS: '1500' }).runLeaseMs, 1500);
  for (const bad of ['0', '999', '-5', '1e4', 'long', '3600001']) {
    assert.throws(
      () => loadConfig({}, { ...env, NOEMA_RUN_LEASE_MS: bad }),
      (e: { code?: string; message: string; details?: { setting?: string } }) =>
        e.code === 'CONFIG_INVALID' &&
        e.details?.setting === 'NOEMA_RUN_LEASE_MS' &&
        e.message ===
          `NOEMA_RUN_LEASE_MS is invalid: "${bad}" is not a number of milliseconds (1000-3600000)`,
      bad,
    );
  }
});
