import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_RECOVERY_INTERVAL_MS } from '../sources/index.ts';
import { loadConfig } from './config.ts';

test('NOEMA_RECOVERY_INTERVAL_MS sets the sweep interval; a bad value is CONFIG_INVALID naming it', () => {
  const env = { NOEMA_DB: ':memory:' };
  assert.equal(loadConfig({}, env).recoveryIntervalMs, DEFAULT_RECOVERY_INTERVAL_MS);
  assert.equal(loadConfig({}, { ...env, NOEMA_RECOVERY_INTERVAL_MS: '250' }).recoveryIntervalMs, 250);
  for (const bad of ['0', '99', '-5', '1e3', 'soon', '86400001']) {
    assert.throws(
      () => loadConfig({}, { ...env, NOEMA_RECOVERY_INTERVAL_MS: bad }),
      (e: { code?: string; message: string; details?: { setting?: string } }) =>
        e.code === 'CONFIG_INVALID' &&
        e.details?.setting === 'NOEMA_RECOVERY_INTERVAL_MS' &&
        e.message.startsWith('NOEMA_RECOVERY_INTERVAL_MS is invalid'),
      bad,
    );
  }
});
