/**
 * The engine's graph IR (seed 003's shape): the authored graph, its nodes, connectors and channels,
 * and the problems validation reports. Re-exported by `engine.ts`, the contract code above the
 * engine sees; this file imports nothing, so every engine module may use it.
 */

/** Any JSON value the engine stores. Values must survive `JSON.stringify` round trips. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/**
 * How a connector feeds its target (seed 003):
 * - `solid`: trigger + context + attachments — the target runs in the next super-step;
 * - `dotted`: context only — the source's latest output lands in `input_context.context_only_upstream_nodes`;
 * - `dashed`: attachments only — its attachments land in `input_context.attachment_only_upstream_nodes`
 *   and `input_context.propagated_attachments`.
 * Only solid connectors trigger execution.
 */
export type ConnectorMode = 'solid' | 'dotted' | 'dashed';

export interface ConnectorSpec {
  /** Optional stable id (used in validation errors and routing artifacts). Defaults to `from->to#index`. */
  id?: string;
  from: string;
  to: string;
  /** Default `solid`. */
  mode?: ConnectorMode;
  /**
   * Routing key. A solid connector with a `route` fires only when the source node's result names
   * that route; a solid connector without one fires whenever the source finishes.
   */
  route?: string;
}

/** Reserved node type: reaching a terminal node completes the run. It has no executor. */
export const TERMINAL = 'terminal';

export interface NodeSpec {
  /** Unique within the graph (a human id: letters, digits, `_`, `-`, `.`). */
  id: string;
  /** A registered node type, or `terminal`. */
  type: string;
  /** The node's authored input, validated against its type's `inputSchema`. */
  config?: Json;
  /**
   * Retry of model-content failures (seed 004 D13): how many generation attempts the node gets
   * (default 1 = no retry). Only results of kind `retry_generation` consume attempts.
   */
  max_generation_attempts?: number;
}

/** How a channel combines writes. `value`: last write wins. `append`: writes are appended to a list. */
export type ChannelReducer = 'value' | 'append';

export interface ChannelSpec {
  reducer: ChannelReducer;
  /** Initial value for `value` channels (default `null`); `append` channels start as `[]`. */
  default?: Json;
}

/** The authored graph. Content-addressed: runs reference the hash of its canonical JSON. */
export interface GraphSpec {
  /** The node the first super-step runs. */
  entry: string;
  nodes: NodeSpec[];
  connectors: ConnectorSpec[];
  /** Named state channels. Writes to undeclared channels are rejected. */
  channels?: Record<string, ChannelSpec>;
  /** Bound on super-steps per run (loops); default 10 000. Exceeding it fails the run with STEP_LIMIT. */
  max_steps?: number;
}

/** One problem found by validation; `validateGraph` lists every one. */
export interface GraphProblem {
  code:
    | 'DUPLICATE_NODE_ID'
    | 'DUPLICATE_CONNECTOR_ID'
    | 'UNKNOWN_NODE_TYPE'
    | 'DANGLING_CONNECTOR'
    | 'UNKNOWN_ENTRY'
    | 'UNREACHABLE_TERMINAL'
    | 'NO_TERMINAL'
    | 'INVALID_NODE_CONFIG'
    | 'INVALID_CONNECTOR'
    | 'INVALID_CHANNEL'
    | 'INVALID_FIELD';
  message: string;
  /** JSON pointer into the graph, like `/nodes/2/type`. */
  path: string;
}
