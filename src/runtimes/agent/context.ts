/**
 * The runtime's shared parts, handed to the session, ECS and profile modules: the store, one engine
 * with the agent node types registered, the node deps, and the set of background runs in flight.
 */
import type { Engine } from '../../engine/index.ts';
import type { Store } from '../../store/store.ts';
import type { AgentNodeDeps } from './nodes/deps.ts';

export interface AgentContext {
  store: Store;
  engine: Engine;
  deps: AgentNodeDeps;
  /** Background profile updates in flight in this process (awaited by `idle()`). */
  background: Set<Promise<unknown>>;
  /** Queue profile updates without running them here. */
  deferBackground: boolean;
}
