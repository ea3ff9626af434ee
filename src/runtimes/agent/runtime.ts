/**
 * The agent runtime: one engine with the agent node types (`emotion`, `memory`, `reasoning`,
 * `tool`, `ecs`) and the profile-synthesis node types registered, an executor over the sources
 * layer, and the operations the surfaces call (definitions, sessions, messages, ECS, profiles).
 */

import { createEngine, type Engine, sourcesExecutor } from '../../engine/index.ts';
import { putJsonSchema } from '../../sources/index.ts';
import type { Store } from '../../store/store.ts';
import type { AgentContext } from './context.ts';
import { type AgentDefinition, getAgent, getAgentByLabel, listAgents, putAgent } from './definition.ts';
import { agentExecutor } from './executor.ts';
import { withAgentChannels } from './graph.ts';
import { type AgentGraph, putAgentGraph } from './graph-store.ts';
import { ecsNode } from './nodes/ecs.ts';
import { emotionNode } from './nodes/emotion.ts';
import { memoryNode } from './nodes/memory.ts';
import { reasoningNode } from './nodes/reasoning.ts';
import { toolNode } from './nodes/tool.ts';
import { OutputJudges } from './output-judges.ts';
import { synthesisNodes } from './profiles/synthesis-graph.ts';
import { resumeProfileUpdates } from './profiles/synthesizer.ts';
import { forgetUser, getUserProfile } from './profiles/users.ts';
import type { ReasoningMemoryPort } from './reasoning-memory.ts';
import {
  EMOTION_DELIVERY,
  INSIGHTS_DELIVERY,
  REASONING_REPLY_DELIVERY,
  SYNTHESIS_DELIVERY,
} from './reply-schema.ts';
import type { TurnResult } from './sessions/drive.ts';
import { continueEcs, respondEcs } from './sessions/ecs.ts';
import { listSessionEvents, type SessionEvent } from './sessions/events.ts';
import { getSessionView } from './sessions/read.ts';
import { claimedTurnDriver, createSession, sendMessage, settleStaleSessions } from './sessions/send.ts';
import { findSession } from './sessions/session-store.ts';
import { replyTextObserver, type TextSink } from './streaming/reply-text.ts';

export interface AgentRuntimeOptions {
  /** Operator configuration for sources (LLM endpoint, MCP URLs); default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Engine lease owner id (default random). */
  owner?: string;
  /** Engine lease length (default 30 s): how soon another process may take over a dead one's turn. */
  leaseMs?: number;
  /**
   * How long a session's claim holds before its run is created (default 30 s): a process that dies
   * between claim and run leaves the session busy this long, then the next message takes it.
   */
  claimLeaseMs?: number;
  /** Finish profile updates left queued by a stopped process (default true). */
  resumeBackground?: boolean;
  /**
   * `run` (default): profile updates run in this process after each interaction. `defer`: they are
   * only queued (durably), for another process's `resumeBackground()` — e.g. a worker.
   */
  background?: 'run' | 'defer';
  /** The branchmind_* tools agents may be given (`reasoning_memory`); provided by the surface layer. */
  reasoningMemory?: ReasoningMemoryPort;
  /**
   * False: this process executes no turn (an API process whose runs execute on workers); a message
   * creates its run and relays the turn's stored events as the process that executes it records them.
   */
  executes?: boolean;
}

export interface AgentRuntime {
  readonly engine: Engine;
  putAgent(doc: unknown): Promise<{ hash: string; definition: AgentDefinition }>;
  putAgentGraph(graph: unknown): Promise<{ hash: string }>;
  getAgent(hash: string): Promise<AgentDefinition>;
  getAgentByLabel(label: string): Promise<{ hash: string; definition: AgentDefinition }>;
  listAgents(limit?: number): Promise<Array<{ hash: string; label: string; created_at: number }>>;
  createSession(input: unknown): Promise<{ session_id: string; agent_hash: string; user_id: string }>;
  sendMessage(session_id: string, input: unknown, onEvent?: (e: SessionEvent) => void): Promise<TurnResult>;
  getSession(session_id: string, options?: { max_messages?: number }): Promise<Record<string, unknown>>;
  /** Stored events after `after` (Last-Event-ID). */
  events(session_id: string, after?: number, limit?: number): Promise<SessionEvent[]>;
  respondEcs(input: unknown): Promise<{ session_id: string; contract_id: string; recorded: true }>;
  continueEcs(input: unknown, onEvent?: (e: SessionEvent) => void): Promise<TurnResult>;
  getUserProfile(user_id: string): Promise<Record<string, unknown>>;
  forgetUser(
    user_id: string,
  ): Promise<{ user_id: string; profile_deleted: boolean; memories_deleted: number }>;
  /** Starts profile updates left queued by a stopped process; returns how many. */
  resumeBackground(): Promise<number>;
  /**
   * Settles session turns stopped processes left `running` (taken over once their lease expired),
   * without waiting for each session's next message. Run in the background at start (with
   * `resumeBackground`); returns how many running sessions it looked at.
   */
  settleStaleSessions(): Promise<number>;
  /** Resolves when this process's background profile updates have finished. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

export async function createAgentRuntime(
  store: Store,
  options: AgentRuntimeOptions = {},
): Promise<AgentRuntime> {
  const env = options.env ?? process.env;
  const recorders: AgentContext['recorders'] = new Map();
  // The reasoning reply's `response` streams to the turn's recorder as live `text_delta` events.
  const textSink = (run_id: string): TextSink | undefined => {
    const rec = recorders.get(run_id);
    return rec
      ? (p) => rec.live('text_delta', { contract_id: p.contract_id, delta: p.text, offset: p.offset })
      : undefined;
  };
  const judges = new OutputJudges();
  const engine = createEngine(store, {
    actions: agentExecutor(
      store,
      sourcesExecutor(store, {
        env,
        chunkObserver: replyTextObserver(textSink),
        outputKind: judges.observer,
      }),
      options.reasoningMemory,
    ),
    ...(options.owner ? { owner: options.owner } : {}),
    ...(options.leaseMs ? { leaseMs: options.leaseMs } : {}),
    ...(options.executes === false ? { executes: false } : {}),
  });
  const [reasoning, emotion, insights, synthesis] = await Promise.all(
    [REASONING_REPLY_DELIVERY, EMOTION_DELIVERY, INSIGHTS_DELIVERY, SYNTHESIS_DELIVERY].map((s) =>
      putJsonSchema(store, s),
    ),
  );
  const cx: AgentContext = {
    store,
    engine,
    deps: {
      store,
      judges,
      ...(options.reasoningMemory ? { memory: options.reasoningMemory } : {}),
      schemaHashes: {
        reasoning: reasoning!.hash,
        emotion: emotion!.hash,
        insights: insights!.hash,
        synthesis: synthesis!.hash,
      },
    },
    background: new Set(),
    driving: new Set(),
    settling: new Map(),
    recorders,
    deferBackground: options.background === 'defer',
    claimLeaseMs: options.claimLeaseMs ?? 30_000,
  };
  for (const t of [
    emotionNode(cx.deps),
    memoryNode(cx.deps),
    reasoningNode(cx.deps),
    toolNode(),
    ecsNode(),
    ...synthesisNodes(cx.deps),
  ])
    engine.register(t as never);

  // A session turn a reclaimer claims (`claimNext`) closes as its own process would have closed it.
  engine.driveClaimed(claimedTurnDriver(cx));

  const runtime: AgentRuntime = {
    engine,
    putAgent: (doc) =>
      putAgent(store, doc, {
        env,
        ...(options.reasoningMemory
          ? { memoryTools: options.reasoningMemory.tools().map((t) => t.name) }
          : {}),
      }),
    putAgentGraph: (graph) =>
      putAgentGraph(store, graph, (g: AgentGraph) => engine.validate(withAgentChannels(g))),
    getAgent: (hash) => getAgent(store, hash),
    getAgentByLabel: (label) => getAgentByLabel(store, label),
    listAgents: (limit) => listAgents(store, limit),
    createSession: (input) => createSession(cx, input),
    sendMessage: (session_id, input, onEvent) => sendMessage(cx, session_id, input, onEvent),
    getSession: (session_id, o) => getSessionView(cx, session_id, o),
    async events(session_id, after = 0, limit = 500) {
      if (!(await findSession(store, session_id))) await getSessionView(cx, session_id);
      return listSessionEvents(store, session_id, after, limit);
    },
    respondEcs: (input) => respondEcs(cx, input),
    continueEcs: (input, onEvent) => continueEcs(cx, input, onEvent),
    getUserProfile: (user_id) => getUserProfile(store, user_id),
    forgetUser: (user_id) => forgetUser(store, user_id),
    resumeBackground: () => resumeProfileUpdates(cx),
    settleStaleSessions: () => settleStaleSessions(cx),
    async idle() {
      // Bounded: each round awaits what is in flight; new work only comes from finished interactions.
      for (let i = 0; i < 100 && cx.background.size > 0; i++) await Promise.allSettled([...cx.background]);
    },
    async close() {
      await runtime.idle();
      await engine.close();
    },
  };
  if (options.resumeBackground !== false) {
    await runtime.resumeBackground();
    const settling = settleStaleSessions(cx).catch(() => 0);
    cx.background.add(settling);
    void settling.finally(() => cx.background.delete(settling));
  }
  return runtime;
}
