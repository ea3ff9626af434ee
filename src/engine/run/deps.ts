/** What the pieces of a running engine share: store, registry, events, identity and settings. */
import type { Store } from '../../store/store.ts';
import type { ActionExecutor } from '../engine.ts';
import type { EventBus } from '../events/bus.ts';
import type { NodeRegistry } from '../graph/registry.ts';

export interface EngineDeps {
  store: Store;
  registry: NodeRegistry;
  bus: EventBus;
  owner: string;
  leaseMs: number;
  snapshotEvery: number;
  actions: ActionExecutor | undefined;
  now: () => number;
}

/** Thrown inside a run's own code path (never to callers) when another process took the lease. */
export class LeaseLost extends Error {
  override name = 'LeaseLost';
}

/** A lease fence's miss (`StepWrite.miss`, `Transaction.writeOne`). */
export const leaseLost = (): Error => new LeaseLost();
