/**
 * The runtimes a server's engine executes besides the agents' (flowcharts and worlds) and the
 * flowchart event hub over them, loaded when first needed — by a request beyond the few routes served
 * from the start, by a reclaimed run of theirs, or by a Socket.IO client — not at start, so an idle
 * server does not carry them. Runs of their node types are claimable only once they are loaded.
 */

import { loadOnce, nextTurn } from '../../core/load-once.ts';
import type { Engine } from '../../engine/index.ts';
import type { Store } from '../../store/store.ts';
import type { RunFeeds } from './events/feed.ts';
import type { FlowEventHub } from './flow/events.ts';

export interface ServerRuntimes {
  flowEvents: FlowEventHub;
}

export interface RuntimesOnDemand {
  /** Loads them (once; concurrent callers share the load): node types registered, world turns bound. */
  load(): Promise<ServerRuntimes>;
  loaded(): boolean;
  /** Whether a run with a node of `type` needs them. */
  needs(type: string): boolean;
  /** Leaves the engine to its owner and closes the event hub, if they were loaded. */
  close(): Promise<void>;
}

export interface RuntimesOnDemandOptions {
  store: Store;
  engine: Engine;
  feeds: RunFeeds;
  /** Register the flowchart node types on `engine` (false: its owner did). */
  registerFlowNodes: boolean;
}

export function runtimesOnDemand(options: RuntimesOnDemandOptions): RuntimesOnDemand {
  const { store, engine, feeds } = options;
  let release: (() => Promise<void>) | null = null;
  const load = loadOnce(async (): Promise<ServerRuntimes> => {
    // One after another, a turn apart: each load holds the event loop while it evaluates.
    const flow = await import('../../runtimes/flow/index.ts');
    await nextTurn();
    const world = await import('../../runtimes/world/index.ts');
    await nextTurn();
    const events = await import('./flow/events.ts');
    // Nothing below throws: a load that failed above is tried again, never registering twice.
    if (options.registerFlowNodes)
      flow.registerFlowNodes(engine, { store, now: Date.now, defaultModel: '@flow' });
    // World turns run on this engine, so its event streams follow them.
    const unbindWorlds = world.bindWorldRuntime(store, engine);
    const flowEvents = new events.FlowEventHub({ store, feeds });
    // A flowchart run this server reclaims is watched as one its API started: its flowchart's room sees it.
    const unwatchClaimed = engine.driveClaimed(async (run_id, execute) => {
      const row = await flow.readFlowRunRow(store, run_id).catch(() => null);
      if (row) await flowEvents.watch(row).catch(() => {});
      return execute();
    });
    release = async () => {
      await flowEvents.close();
      unbindWorlds();
      unwatchClaimed();
    };
    return { flowEvents };
  });
  return {
    load,
    loaded: () => release !== null,
    needs: (type) => type.startsWith('flow.') || type.startsWith('world.'),
    async close() {
      await release?.();
    },
  };
}
