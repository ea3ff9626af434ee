/**
 * Opens the configured store with every migration applied: the one way surfaces get a store.
 * Startup recovery runs here, so calls left `running` by a dead process read `interrupted`.
 */
import { migrateLegacyFlowchartConfigs } from '../runtimes/flow/legacy.ts';
import { recoverInterruptedInvocations } from '../sources/recovery.ts';
import { openStore, type Store } from '../store/index.ts';
import type { NoemaConfig } from './config.ts';
import { migrations } from './migrations.ts';

export async function openNoemaStore(config: Pick<NoemaConfig, 'store'>): Promise<Store> {
  const store = await openStore(config.store, { migrations });
  try {
    await recoverInterruptedInvocations(store);
    // Seed 003: legacy flowchart node configs are migrated at startup; a malformed one aborts it.
    await migrateLegacyFlowchartConfigs(store);
  } catch (err) {
    await store.close();
    throw err;
  }
  return store;
}
