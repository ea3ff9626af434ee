/** One world runtime (engine + node types) per store, created on first use by a surface. */
import type { Store } from '../../store/store.ts';
import { createWorldRuntime, type WorldRuntime } from './runtime.ts';

const runtimes = new WeakMap<Store, WorldRuntime>();

export function sharedWorldRuntime(store: Store): WorldRuntime {
  let rt = runtimes.get(store);
  if (!rt) {
    rt = createWorldRuntime(store);
    runtimes.set(store, rt);
  }
  return rt;
}
