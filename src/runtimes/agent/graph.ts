/**
 * The cognitive graph of seed 000 as an ordinary, explicit engine graph: Emotion → Memory →
 * Reasoning → Tool / ECS → Reasoning, ending when Reasoning routes `done`. Nothing is hidden: this
 * template is what runs unless a definition's `graph_ref` names another graph over the same types.
 */
import { deepFreeze } from '../../core/deep-freeze.ts';
import type { ChannelSpec, GraphSpec } from '../../engine/index.ts';
import type { AgentGraph } from './graph-store.ts';

/** The node types the runtime registers. */
export const AGENT_NODE_TYPES = ['emotion', 'memory', 'reasoning', 'tool', 'ecs'] as const;

/**
 * The state channels of an agent run. `messages` is this interaction's dialogue (appended);
 * the rest hold the Cogency state (seed 002) and what the Emotion/Memory nodes found.
 */
export const AGENT_CHANNELS: Record<string, ChannelSpec> = {
  session: { reducer: 'value' },
  execution: { reducer: 'value' },
  reasoning: { reducer: 'value' },
  messages: { reducer: 'append' },
  history: { reducer: 'value', default: [] },
  profile: { reducer: 'value' },
  emotion: { reducer: 'value' },
  memory: { reducer: 'value' },
  notifications: { reducer: 'append' },
};

export const DEFAULT_COGNITIVE_GRAPH: AgentGraph = {
  entry: 'emotion',
  nodes: [
    { id: 'emotion', type: 'emotion', max_generation_attempts: 2 },
    { id: 'memory', type: 'memory' },
    { id: 'reasoning', type: 'reasoning', max_generation_attempts: 3 },
    { id: 'tool', type: 'tool' },
    { id: 'ecs', type: 'ecs' },
    { id: 'end', type: 'terminal' },
  ],
  connectors: [
    { from: 'emotion', to: 'memory' },
    { from: 'memory', to: 'reasoning' },
    { from: 'reasoning', to: 'tool', route: 'tool' },
    { from: 'reasoning', to: 'ecs', route: 'ecs' },
    { from: 'reasoning', to: 'end', route: 'done' },
    { from: 'tool', to: 'reasoning' },
    { from: 'ecs', to: 'reasoning' },
  ],
  max_steps: 400,
};

export function withAgentChannels(graph: AgentGraph): GraphSpec {
  return { ...graph, channels: AGENT_CHANNELS };
}

/**
 * The graph a run of `graph` is made of, frozen: every turn of every session of an agent runs the
 * same object, which the engine hashes once (it keys a frozen graph's hash by identity) instead of
 * encoding and hashing it on every message.
 */
export function runGraphOf(graph: AgentGraph): GraphSpec {
  return deepFreeze(withAgentChannels(graph));
}

/** The default cognitive graph as its runs are made of it. */
export const DEFAULT_RUN_GRAPH: GraphSpec = runGraphOf(DEFAULT_COGNITIVE_GRAPH);
