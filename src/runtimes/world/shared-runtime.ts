/**
 * The world runtime a surface uses for a store: the one bound to the HTTP server's engine while a
 * server runs on the store (so its event streams see every turn), else one with its own engine,
 * created on first use (CLI, MCP over stdio).
 */
import type { Engine } from '../../engine/index.ts';
import type { Store } from '../../store/store.ts';
import { createWorldRuntime, type WorldRuntime, worldRuntimeOn } from './runtime.ts';

const runtimes = new WeakMap<Store, WorldRuntime>();

export function sharedWorldRuntime(store: Store): WorldRuntime {
  let rt = runtimes.get(store);
  if (!rt) {
    rt = createWorldRuntime(store);
    runtimes.set(store, rt);
  }
  return rt;
}

/**
 * Makes `engine` (a server's) run the world turns of `store` for every surface of this process.
 * Returns unbind, which leaves the engine to its owner.
 */
export function bindWorldRuntime(store: Store, engine: Engine): () => void {
  // An engine that already runs world turns (e.g. a world runtime's own, handed to the server)
  // keeps its runtime: node types are registered once per engine.
  const rt = worldRuntimeOn(engine) ?? createWorldRuntime(store, { engine });
  const previous = runtimes.get(store);
  runtimes.set(store, rt);
  const bound = rt;
  return () => {
    if (runtimes.get(store) !== bound) return;
    if (previous) runtimes.set(store, previous);
    else runtimes.delete(store);
  };
}
