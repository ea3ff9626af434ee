/** `noema migrate`: applies pending migrations to the configured store and reports them. */
import { loadConfig } from '../../../app/config.ts';
import { migrations } from '../../../app/migrations.ts';
import { migrate, openStore } from '../../../store/index.ts';
import { type Command, DB_FLAG, EXIT_OK } from '../command.ts';

export const migrateCommand: Command = {
  path: ['migrate'],
  summary: 'Apply pending schema migrations to the store',
  flags: { db: DB_FLAG },
  async run({ flags, io }) {
    const config = loadConfig({ db: flags.db as string | undefined });
    const store = await openStore(config.store);
    try {
      const report = await migrate(store, migrations);
      for (const m of report.applied) io.out(`applied ${m.id} ${m.name}`);
      io.out(`schema at migration ${report.current} (${store.location})`);
      const { migrateLegacyFlowchartConfigs } = await import('../../../runtimes/flow/legacy.ts');
      const legacy = await migrateLegacyFlowchartConfigs(store);
      for (const m of legacy.migrated)
        io.out(`migrated flowchart ${m.flowchart_id} node ${m.flowchart_node_id} (${m.node_type}) config`);
    } finally {
      await store.close();
    }
    return EXIT_OK;
  },
};
