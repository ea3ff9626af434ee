import assert from 'node:assert/strict';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { testTempDir } from '../testing/temp-dir.ts';
import { resolveToken } from './token.ts';

test('a generated token lives in a data directory and file readable by their owner only', () => {
  const dataDir = join(testTempDir('noema-token-'), 'fresh', 'data');
  const t = resolveToken(undefined, dataDir);
  assert.equal(t.generated, true);
  assert.equal((statSync(dataDir).mode & 0o777).toString(8), '700');
  assert.equal((statSync(join(dataDir, 'token')).mode & 0o777).toString(8), '600');
  assert.equal(resolveToken(undefined, dataDir).token, t.token);
});
