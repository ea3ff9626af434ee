/**
 * A bundle's documents are copied as they are written: a `"__proto__"` member of a scenario file is
 * a member the scenario's checks see (and refuse), never the prototype of the assembled scenario,
 * whose fields would then read as the file's own while the stored document lacked them.
 */
import assert from 'node:assert/strict';
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { NoemaError } from '../../core/errors.ts';
import { openTestStore, selectedStores } from '../../testing/stores.ts';
import { testTempDir } from '../../testing/temp-dir.ts';
import { PARK_BUNDLE } from '../../testing/world-kit.ts';
import { applyBundle } from './bundle.ts';

for (const kind of selectedStores()) {
  describe(`world bundles [${kind}]`, () => {
    test('a "__proto__" member of a bundle document stays a member, and the scenario is refused for it', async () => {
      const dir = testTempDir('noema-bundle-');
      const { store, dispose } = await openTestStore(kind);
      try {
        cpSync(PARK_BUNDLE, dir, { recursive: true });
        const path = join(dir, 'scenario.json');
        const scenario = JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>;
        const text = JSON.stringify(scenario);
        // The file's own fields moved under "__proto__": assigned, they would come back inherited.
        writeFileSync(path, `{"__proto__":${text}}`);
        const err = await applyBundle(store, dir).then(
          () => null,
          (e: unknown) => e,
        );
        assert.ok(err instanceof NoemaError, `refused with a typed error, not ${String(err)}`);
        assert.equal(err.code, 'SCENARIO_INVALID');
        assert.equal(
          (await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM scenarios'))?.n,
          0,
          'no scenario stored',
        );
      } finally {
        await dispose();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });
}
