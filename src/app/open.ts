/** Opens the configured store with every migration applied: the one way surfaces get a store. */
import { openStore } from '../store/open.ts';
import type { Store } from '../store/store.ts';
import type { NoemaConfig } from './config.ts';
import { migrations } from './migrations.ts';

export function openNoemaStore(config: Pick<NoemaConfig, 'store'>): Promise<Store> {
  return openStore(config.store, { migrations });
}
