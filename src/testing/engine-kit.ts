/**
 * Node types, graphs and a counting action executor for engine tests, the kill -9 worker and the
 * benchmark. They stand in for the runtimes' real node types (which the engine never knows).
 */
import { appendFileSync } from 'node:fs';
import type {
  ActionExecutor,
  ActionOutcome,
  Engine,
  ExecutionContract,
  GraphSpec,
  Json,
  NodeType,
} from '../engine/index.ts';

type Obj = Record<string, Json>;

/** Appends `config.text` (or the step number) to `messages`; optional `output`, `route`, `attachments`. */
export const appendNode: NodeType<Obj | null> = {
  type: 'append',
  execute(ctx) {
    const c = ctx.config ?? {};
    return {
      kind: 'ok',
      writes: { messages: (c.text as Json) ?? `step ${ctx.step}` },
      ...(c.output !== undefined ? { output: c.output } : {}),
      ...(c.route !== undefined ? { route: c.route as string } : {}),
      ...(c.attachments !== undefined ? { attachments: c.attachments as Json[] } : {}),
    };
  },
};

/** Increments `count`; routes `again` until it reaches `config.limit`, then `done`. */
export const counterNode: NodeType<{ limit: number }> = {
  type: 'counter',
  inputSchema: {
    type: 'object',
    required: ['limit'],
    properties: { limit: { type: 'integer', minimum: 1 } },
  },
  execute(ctx) {
    const next = ((ctx.state.count as number | null) ?? 0) + 1;
    return { kind: 'ok', writes: { count: next }, route: next < ctx.config.limit ? 'again' : 'done' };
  },
};

/** Outputs what its connectors fed it. */
export const contextNode: NodeType<null> = {
  type: 'context',
  execute: (ctx) => ({ kind: 'ok', output: ctx.input_context as unknown as Json }),
};

export const FORM_SCHEMA = {
  type: 'object',
  required: ['approved'],
  properties: { approved: { type: 'boolean' }, note: { type: 'string' } },
  additionalProperties: false,
} as const;

/** Suspends with a human form (a WAITING contract whose response must match FORM_SCHEMA). */
export const humanNode: NodeType<null> = {
  type: 'human',
  execute: () => ({
    kind: 'suspend',
    contract: {
      action_type: 'human_form',
      payload: { form: 'approve?', response_schema: FORM_SCHEMA as unknown as Json },
    },
  }),
};

/** First visit: creates a tool_call contract. Re-entry: reads the finished contract's status, routes `done`. */
export const reasonNode: NodeType<null> = {
  type: 'reason',
  execute(ctx) {
    const done = ctx.completed_executions.filter((c) => c.action_type === 'tool_call');
    if (done.length === 0) {
      return {
        kind: 'ok',
        route: 'act',
        contracts: [{ action_type: 'tool_call', payload: { tool: 'add', args: { a: 2, b: 3 } } }],
      };
    }
    const last = done.at(-1)!;
    return {
      kind: 'ok',
      route: 'done',
      writes: { messages: `${last.status}:${JSON.stringify(last.result)}` },
    };
  },
};

/** Performs every pending tool_call contract (seed 000's ToolNode). */
export const toolNode: NodeType<null> = {
  type: 'tool',
  async execute(ctx) {
    for (const c of ctx.pending_executions.filter((p) => p.action_type === 'tool_call'))
      await ctx.perform(c.contract_id);
    return { kind: 'ok' };
  },
};

/** Each step performs one action through `ctx.act` and counts; for crash tests. */
export const actNode: NodeType<{ limit: number; sleep_ms?: number }> = {
  type: 'act',
  async execute(ctx) {
    const n = ((ctx.state.count as number | null) ?? 0) + 1;
    const c = await ctx.act('tool_call', { tool: 'tick', n });
    if (ctx.config.sleep_ms) await new Promise((r) => setTimeout(r, ctx.config.sleep_ms));
    return {
      kind: 'ok',
      writes: { count: n, messages: c.status },
      route: n < ctx.config.limit ? 'again' : 'done',
    };
  },
};

/** `actNode` for graphs of value channels only (so snapshots are written): `count` and `last` status. */
export const actValueNode: NodeType<{ limit: number; sleep_ms?: number }> = {
  type: 'act_value',
  async execute(ctx) {
    const n = ((ctx.state.count as number | null) ?? 0) + 1;
    const c = await ctx.act('tool_call', { tool: 'tick', n });
    if (ctx.config.sleep_ms) await new Promise((r) => setTimeout(r, ctx.config.sleep_ms));
    return {
      kind: 'ok',
      writes: { count: n, last: c.status },
      output: { n },
      route: n < ctx.config.limit ? 'again' : 'done',
    };
  },
};

/** Fails generation until `config.succeed_on` attempts, echoing the corrective context it received. */
export const flakyModelNode: NodeType<{ succeed_on: number }> = {
  type: 'flaky_model',
  execute(ctx) {
    if (ctx.attempt < ctx.config.succeed_on) {
      return {
        kind: 'retry_generation',
        error: `attempt ${ctx.attempt}: not JSON`,
        corrective: `attempt ${ctx.attempt} was not JSON; reply with JSON only`,
      };
    }
    return {
      kind: 'ok',
      output: { attempt: ctx.attempt, corrective: ctx.corrective_context.map((n) => n.corrective) },
    };
  },
};

export const kitTypes = [
  appendNode,
  counterNode,
  contextNode,
  humanNode,
  reasonNode,
  toolNode,
  actNode,
  actValueNode,
  flakyModelNode,
] as NodeType<never>[];

export function registerKit(engine: Engine): void {
  for (const t of kitTypes) engine.register(t);
}

/** An executor that counts calls (in memory, and to `logFile` when given, so other processes can be audited). */
export class CountingExecutor implements ActionExecutor {
  calls: ExecutionContract[] = [];
  readonly #logFile: string | undefined;
  readonly #fail: (c: ExecutionContract) => boolean;
  constructor(options: { logFile?: string; fail?: (c: ExecutionContract) => boolean } = {}) {
    this.#logFile = options.logFile;
    this.#fail = options.fail ?? (() => false);
  }
  async execute(contract: ExecutionContract): Promise<ActionOutcome> {
    this.calls.push(contract);
    if (this.#logFile) appendFileSync(this.#logFile, `${contract.contract_id}\n`);
    if (this.#fail(contract)) return { ok: false, error_message: 'tool exploded' };
    const p = contract.payload as Obj;
    const args = (p.args ?? {}) as Record<string, number>;
    return { ok: true, result: p.tool === 'add' ? (args.a ?? 0) + (args.b ?? 0) : { ok: p.n ?? null } };
  }
}

/** reason → tool → reason → end: seed 000's loop. */
export const toolLoopGraph: GraphSpec = {
  entry: 'reason',
  channels: { messages: { reducer: 'append' } },
  nodes: [
    { id: 'reason', type: 'reason' },
    { id: 'tool', type: 'tool' },
    { id: 'end', type: 'terminal' },
  ],
  connectors: [
    { from: 'reason', to: 'tool', route: 'act' },
    { from: 'reason', to: 'end', route: 'done' },
    { from: 'tool', to: 'reason' },
  ],
};

/** A loop of `limit` act steps (one action each) then the terminal. */
export function actLoopGraph(limit: number, sleep_ms = 0): GraphSpec {
  return {
    entry: 'act',
    channels: { count: { reducer: 'value', default: 0 }, messages: { reducer: 'append' } },
    nodes: [
      { id: 'act', type: 'act', config: { limit, sleep_ms } },
      { id: 'end', type: 'terminal' },
    ],
    connectors: [
      { from: 'act', to: 'act', route: 'again' },
      { from: 'act', to: 'end', route: 'done' },
    ],
  };
}

/** `actLoopGraph` with value channels only: snapshots apply to its runs. */
export function actValueLoopGraph(limit: number, sleep_ms = 0): GraphSpec {
  return {
    entry: 'act',
    channels: { count: { reducer: 'value', default: 0 }, last: { reducer: 'value' } },
    nodes: [
      { id: 'act', type: 'act_value', config: { limit, sleep_ms } },
      { id: 'end', type: 'terminal' },
    ],
    connectors: [
      { from: 'act', to: 'act', route: 'again' },
      { from: 'act', to: 'end', route: 'done' },
    ],
  };
}

/** ask (human form) → after → end. */
export const humanGraph: GraphSpec = {
  entry: 'ask',
  channels: { messages: { reducer: 'append' } },
  nodes: [
    { id: 'ask', type: 'human' },
    { id: 'after', type: 'append', config: { text: 'resumed' } },
    { id: 'end', type: 'terminal' },
  ],
  connectors: [
    { from: 'ask', to: 'after' },
    { from: 'after', to: 'end' },
  ],
};

/** One append node, then the end: a run that completes in one step. */
export const appendGraph: GraphSpec = {
  entry: 'a',
  channels: { messages: { reducer: 'append' } },
  nodes: [
    { id: 'a', type: 'append', config: { text: 'done' } },
    { id: 'end', type: 'terminal' },
  ],
  connectors: [{ from: 'a', to: 'end' }],
};
