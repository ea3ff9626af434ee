import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import type { Store } from '../../store/store.ts';
import { runCli } from '../../testing/cli.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import { testTempDir } from '../../testing/temp-dir.ts';
import { createFlowchart, getGraph, migrateLegacyFlowchartConfigs } from './index.ts';

async function legacyRow(store: Store, id: string, type: string, configJson: string): Promise<void> {
  await store.run(
    'INSERT INTO flowchart_nodes (flowchart_id, flowchart_node_id, node_type, title, config_json, ord) VALUES (?, ?, ?, ?, ?, ?)',
    ['legacy', id, type, '', configJson, 0],
  );
}

const configOf = async (store: Store, id: string) =>
  JSON.parse(
    (await store.get<{ c: string }>(
      'SELECT config_json AS c FROM flowchart_nodes WHERE flowchart_node_id = ?',
      [id],
    ))!.c,
  );

describeEachStore('flowchart legacy config migration', (factory) => {
  test('each legacy plan and memory shape is migrated to the canonical one', async () =>
    factory.withStore(async ({ store }) => {
      await createFlowchart(store, { name: 'legacy', flowchart_id: 'legacy' });
      await legacyRow(store, 'p-create', 'plan', JSON.stringify({ action: 'create_or_update_plan' }));
      await legacyRow(
        store,
        'p-complete',
        'plan',
        JSON.stringify({ action: 'complete_plan_item', mode: 'bogus' }),
      );
      await legacyRow(
        store,
        'p-unknown',
        'plan',
        JSON.stringify({ action: 'frobnicate', mode: 'llm_guided' }),
      );
      await legacyRow(store, 'm-none', 'memory', JSON.stringify({ action: 'add' }));
      await legacyRow(
        store,
        'm-bad',
        'memory',
        JSON.stringify({ action: 'retrieve', mode: 'psychic', retry_count: 2 }),
      );
      const revision = (await getGraph(store, 'legacy')).graph_revision;
      const report = await migrateLegacyFlowchartConfigs(store);
      assert.equal(report.migrated.length, 5);
      assert.equal((await getGraph(store, 'legacy')).graph_revision, revision + 1, 'a new revision');
      assert.deepEqual(await configOf(store, 'p-create'), {
        mode: 'deterministic',
        store_mode: 'append',
        retry_count: 1,
        fallback_enabled: true,
        retention_mode: 'forever',
        retention_ttl_seconds: 3600,
        retention_max_count: 25,
      });
      assert.equal((await configOf(store, 'p-complete')).store_mode, 'update');
      assert.equal((await configOf(store, 'p-complete')).mode, 'deterministic');
      assert.equal((await configOf(store, 'p-unknown')).store_mode, 'append');
      assert.equal((await configOf(store, 'p-unknown')).mode, 'llm_guided');
      const mNone = await configOf(store, 'm-none');
      assert.equal(mNone.mode, 'llm_guided');
      assert.equal(mNone.retry_count, 1);
      assert.equal(mNone.fallback_enabled, true);
      const mBad = await configOf(store, 'm-bad');
      assert.equal(mBad.mode, 'llm_guided');
      assert.equal(mBad.retry_count, 2);
      assert.equal((await migrateLegacyFlowchartConfigs(store)).migrated.length, 0, 'idempotent');
      assert.equal((await getGraph(store, 'legacy')).graph_revision, revision + 1);
      assert.equal((await getGraph(store, 'legacy')).nodes.length, 5);
    }));

  test('a malformed non-object config_json aborts noema migrate in one line and changes nothing', async () =>
    factory.withStore(async ({ store, url }) => {
      await createFlowchart(store, { name: 'legacy', flowchart_id: 'legacy' });
      await legacyRow(store, 'p-ok', 'plan', JSON.stringify({ action: 'create_or_update_plan' }));
      await legacyRow(store, 'p-broken', 'plan', '[1, 2, 3]');
      const r = await runCli(['migrate', '--db', url]);
      assert.equal(r.code, 1);
      const errLines = r.stderr.trim().split('\n');
      assert.equal(errLines.length, 1, r.stderr);
      assert.match(errLines[0]!, /flowchart legacy node p-broken: config_json is not a JSON object/);
      assert.deepEqual(await configOf(store, 'p-ok'), { action: 'create_or_update_plan' }, 'nothing changed');
      const serve = await runCli(['serve', '--port', '0', '--db', url], { NOEMA_TOKEN: 'x'.repeat(32) });
      assert.equal(serve.code, 1, serve.stdout);
      assert.match(serve.stderr.trim(), /^noema: flowchart legacy node p-broken/);
    }));

  test('noema flow import takes a legacy export', async () =>
    factory.withStore(async ({ store, url }) => {
      const dir = testTempDir('noema-flow-');
      const file = join(dir, 'legacy.json');
      writeFileSync(
        file,
        JSON.stringify({
          flowchart: { id: 'imported', name: 'Imported' },
          nodes: [
            { id: 'start', type: 'start', config_json: '{}' },
            { id: 'plan', type: 'plan', config_json: JSON.stringify({ action: 'complete_plan_item' }) },
            { id: 'mem', type: 'memory', config_json: JSON.stringify({ action: 'add', mode: 'nonsense' }) },
            { id: 'end', type: 'end', config_json: '{}' },
          ],
          edges: [
            { from: 'start', to: 'plan' },
            { from: 'plan', to: 'mem' },
            { from: 'mem', to: 'end' },
          ],
        }),
      );
      const r = await runCli(['flow', 'import', file, '--db', url]);
      assert.equal(r.code, 0, r.stderr);
      assert.equal(JSON.parse(r.stdout).flowchart_id, 'imported');
      const g = await getGraph(store, 'imported');
      const plan = g.nodes.find((n) => n.id === 'plan')!.config;
      assert.equal(plan.store_mode, 'update');
      assert.equal(plan.mode, 'deterministic');
      assert.equal(g.nodes.find((n) => n.id === 'mem')!.config.mode, 'llm_guided');
      assert.equal(g.validation.valid, true, JSON.stringify(g.validation));
    }));
});
