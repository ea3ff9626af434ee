/**
 * The runtime's shared parts, handed to the session, ECS and profile modules: the store, one engine
 * with the agent node types registered, the node deps, and the set of background runs in flight.
 */
import type { Engine } from '../../engine/index.ts';
import type { Store } from '../../store/store.ts';
import type { AgentNodeDeps } from './nodes/deps.ts';
import type { SessionEventRecorder } from './sessions/recorder.ts';

export interface AgentContext {
  store: Store;
  engine: Engine;
  deps: AgentNodeDeps;
  /** Background profile updates in flight in this process (awaited by `idle()`). */
  background: Set<Promise<unknown>>;
  /** Runs this process is driving now (a session turn in flight here is never "stale"). */
  driving: Set<string>;
  /** Stale turns being settled here, by run: a second settling of one waits for the first. */
  settling: Map<string, Promise<void>>;
  /** The event recorder of each run this process drives (live `text_delta` events go through it). */
  recorders: Map<string, SessionEventRecorder>;
  /** Queue profile updates without running them here. */
  deferBackground: boolean;
  /** How long a session claim holds before its run exists (then the engine lease takes over). */
  claimLeaseMs: number;
}
