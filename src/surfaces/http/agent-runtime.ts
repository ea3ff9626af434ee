/**
 * The agent runtime the HTTP surface serves: one per store, created on first use (so a server that
 * never sees an agent loads none of it), with the reasoning-memory tools of the MCP memory catalog.
 */
import type { AgentRuntime } from '../../runtimes/agent/index.ts';
import type { Store } from '../../store/store.ts';

const runtimes = new WeakMap<Store, Promise<AgentRuntime>>();
const leases = new WeakMap<Store, number>();
const leftToWorkers = new WeakSet<Store>();

/** The engine lease of the agent runtime created for `store` from now on (NOEMA_RUN_LEASE_MS). */
export function setAgentRuntimeLease(store: Store, leaseMs: number): void {
  leases.set(store, leaseMs);
}

/** The agent runtime created for `store` from now on executes no turn: workers do (`serve --no-work`). */
export function leaveAgentRunsToWorkers(store: Store): void {
  leftToWorkers.add(store);
}

export function agentRuntimeFor(store: Store): Promise<AgentRuntime> {
  let rt = runtimes.get(store);
  if (!rt) {
    rt = (async () => {
      const { createAgentRuntime } = await import('../../runtimes/agent/index.ts');
      const { agentReasoningMemory } = await import('../mcp/agent-memory.ts');
      const leaseMs = leases.get(store);
      return createAgentRuntime(store, {
        reasoningMemory: agentReasoningMemory(store),
        ...(leaseMs !== undefined ? { leaseMs } : {}),
        ...(leftToWorkers.has(store) ? { executes: false } : {}),
      });
    })();
    runtimes.set(store, rt);
    // A failed start is not cached: the next request tries again.
    rt.catch(() => runtimes.delete(store));
  }
  return rt;
}

/** Waits for the runtime's background work and closes it, if one was created for `store`. */
export async function closeAgentRuntime(store: Store): Promise<void> {
  const rt = runtimes.get(store);
  if (!rt) return;
  runtimes.delete(store);
  await (await rt.catch(() => null))?.close();
}
