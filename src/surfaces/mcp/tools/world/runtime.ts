/** One world runtime (engine + node types) per store, created on first use by a world tool. */
import { createWorldRuntime, type WorldRuntime } from '../../../../runtimes/world/index.ts';
import type { Store } from '../../../../store/store.ts';

const runtimes = new WeakMap<Store, WorldRuntime>();

export function worldRuntimeFor(store: Store): WorldRuntime {
  let rt = runtimes.get(store);
  if (!rt) {
    rt = createWorldRuntime(store);
    runtimes.set(store, rt);
  }
  return rt;
}
