/**
 * Creating sessions and sending a message: claims the session (`idle → running`, else
 * SESSION_BUSY) and stores the user's message and the `started` event in one transaction, creates
 * the run of the agent's cognitive graph with the Cogency state as its input, and drives it
 * (drive.ts) while streaming the session events.
 */

import { validateCompiled } from '../../../core/compiled-validators.ts';
import { invalidInput, NoemaError, uuidv7 } from '../../../core/index.ts';
import { lruPerHandle } from '../../../core/lru.ts';
import { schemas } from '../../../core/schema-registry.ts';
import type { GraphSpec, Json, RunOutcome } from '../../../engine/index.ts';
import type { AgentContext } from '../context.ts';
import { type AgentDefinition, getAgent, getAgentByLabel } from '../definition.ts';
import { DEFAULT_RUN_GRAPH, runGraphOf } from '../graph.ts';
import { getAgentGraph } from '../graph-store.ts';
import type { ExecutionCore, SessionRef } from '../nodes/deps.ts';
import { loadProfile } from '../profiles/profile-store.ts';
import type { AgentMode } from '../state/execution-state.ts';
import { initialMode } from '../state/mode.ts';
import { newReasoningContext, type ReasoningContext } from '../state/reasoning-context.ts';
import { driveRun, type TurnResult } from './drive.ts';
import type { SessionEvent } from './events.ts';
import { SessionEventRecorder } from './recorder.ts';
import {
  appendMessage,
  claimSession,
  findSession,
  getSessionOrThrow,
  insertSession,
  recentMessages,
  releaseExpiredClaim,
  runningSessionOfRun,
  runningSessions,
  type SessionRow,
} from './session-store.ts';

const CREATE_SCHEMA = {
  type: 'object',
  required: ['user_id'],
  additionalProperties: false,
  properties: {
    agent_ref: {
      type: 'object',
      required: ['hash'],
      additionalProperties: false,
      properties: { hash: { type: 'string', pattern: '^[0-9a-f]{64}$' } },
    },
    agent_label: { type: 'string', minLength: 1, maxLength: 128 },
    user_id: { type: 'string', pattern: '^[A-Za-z0-9_.@:-]{1,128}$' },
  },
  oneOf: [{ required: ['agent_ref'] }, { required: ['agent_label'] }],
};

export const MESSAGE_SCHEMA = {
  type: 'object',
  required: ['content'],
  additionalProperties: false,
  properties: {
    content: { type: 'string', minLength: 1, maxLength: 32000 },
    mode: { enum: ['fast', 'deep', 'adapt'] },
  },
};

export async function createSession(
  cx: AgentContext,
  input: unknown,
): Promise<{ session_id: string; agent_hash: string; user_id: string }> {
  const r = schemas.validate<{ agent_ref?: { hash: string }; agent_label?: string; user_id: string }>(
    CREATE_SCHEMA,
    input,
  );
  if (!r.ok)
    throw invalidInput(
      'session request is invalid',
      { errors: r.errors },
      'give agent_ref or agent_label, and user_id',
    );
  let hash: string;
  if (r.value.agent_ref) {
    await getAgent(cx.store, r.value.agent_ref.hash); // must exist
    hash = r.value.agent_ref.hash;
  } else hash = (await getAgentByLabel(cx.store, r.value.agent_label!)).hash;
  const s = await insertSession(cx.store, hash, r.value.user_id);
  return { session_id: s.session_id, agent_hash: hash, user_id: s.user_id };
}

/** Stored agent graphs a process keeps, made into the graphs their runs are made of. */
const RUN_GRAPHS_CACHED = 64;
/** By hash: a stored graph is content-addressed, so a hash always names the same graph. */
const runGraphs = lruPerHandle<string, GraphSpec>(RUN_GRAPHS_CACHED);

/** The graph a turn of `def` runs: the same frozen object turn after turn (see `runGraphOf`). */
async function graphOf(cx: AgentContext, def: AgentDefinition): Promise<GraphSpec> {
  if (!def.graph_ref) return DEFAULT_RUN_GRAPH;
  const { hash } = def.graph_ref;
  const cache = runGraphs(cx.store);
  let graph = cache.get(hash);
  if (!graph) {
    graph = runGraphOf(await getAgentGraph(cx.store, hash));
    cache.set(hash, graph);
  }
  return graph;
}

/**
 * The reasoning context a message starts from: the last finished turn's (insights and facts carry
 * over), with the new goal. Stored on the session; sessions from before it was stored read the run.
 */
async function previousReasoning(
  cx: AgentContext,
  claimed: SessionRow,
  previous_run: string | null,
  goal: string,
): Promise<ReasoningContext> {
  if (claimed.reasoning) return { ...(JSON.parse(claimed.reasoning) as ReasoningContext), goal };
  if (!previous_run) return newReasoningContext(goal);
  try {
    const run = await cx.engine.getRun(previous_run);
    const rc = run.state.reasoning as unknown as ReasoningContext | null;
    return rc ? { ...rc, goal } : newReasoningContext(goal);
  } catch {
    return newReasoningContext(goal);
  }
}

/**
 * A session left `running` by a process that died: if its run already stopped (completed, failed,
 * waiting) the turn is settled now; if its run is still `running`, this process takes it over when
 * the engine lease has expired (the engine replays the journal: finished calls are not made again,
 * an interrupted model call is made again) — a live owner keeps it and the caller gets SESSION_BUSY
 * as usual. A turn opens with its run created claimed by its creator's engine in the same
 * transaction, so a run opened and not yet executed is held by that lease as a run mid-execution is.
 * A run queued under a claim (turns opened before runs were created claimed) is left to its creator
 * while the claim's lease lasts, then taken over; a claim without a run (rows written before turns
 * opened with their run) frees the session once the claim's lease expired.
 */
function settleStaleTurn(cx: AgentContext, session: SessionRow): Promise<void> {
  const run_id = session.run_id;
  if (!run_id) return Promise.resolve();
  // Another message or settling pass of this process is at it: its end is this one's.
  const inFlight = cx.settling.get(run_id);
  if (inFlight) return inFlight;
  if (cx.driving.has(run_id)) return Promise.resolve();
  const settling = settle(cx, session, run_id).finally(() => cx.settling.delete(run_id));
  cx.settling.set(run_id, settling);
  return settling;
}

async function settle(cx: AgentContext, session: SessionRow, run_id: string): Promise<void> {
  const run = await cx.engine.getRun(run_id, { max_chars: 4000 }).catch((err: { code?: string }) => {
    if (err.code === 'UNKNOWN_RUN') return null;
    throw err;
  });
  if (!run) {
    await releaseExpiredClaim(cx.store, session.session_id, run_id);
    return;
  }
  // A queued run under a claim that still holds is its creator's, about to execute it (a turn opened
  // before runs were created claimed).
  if (run.status === 'queued' && Number(session.claim_expires_at ?? 0) > Date.now()) return;
  // Taken by this process meanwhile (a claim of its reclaimer): one driver per turn. driveRun marks
  // the run driven before its first await.
  if (cx.driving.has(run_id)) return;
  await driveRun(
    cx,
    session,
    run_id,
    () => cx.engine.continueRun(run_id),
    new SessionEventRecorder(cx.store, session.session_id, run_id, () => {}),
    { recovering: true },
  );
}

/**
 * The driver of runs the engine's `claimNext` takes (a reclaimer finishing a dead process's run): a
 * session turn is driven and closed as its own process would have (transcript, status, closing
 * event); any other run (a profile update) just executes.
 */
export function claimedTurnDriver(
  cx: AgentContext,
): (run_id: string, execute: () => Promise<RunOutcome>) => Promise<RunOutcome> {
  return async (run_id, execute) => {
    if (cx.driving.has(run_id)) return execute();
    // Driven here from the claim on, before the first await: a message or a settling pass of this
    // process that finds the session running must not drive the turn a second time.
    cx.driving.add(run_id);
    try {
      const session = await runningSessionOfRun(cx.store, run_id);
      if (!session) return await execute();
      const rec = new SessionEventRecorder(cx.store, session.session_id, run_id, () => {});
      return (await driveRun(cx, session, run_id, execute, rec, { recovering: true })).outcome;
    } finally {
      cx.driving.delete(run_id);
    }
  };
}

/**
 * Settles the turns stopped processes left behind, without waiting for the sessions' next
 * messages (run when a runtime starts): each `running` session goes through the same rules as a
 * message would (a live owner keeps its turn; a dead one's is taken over once its lease expired; a
 * claim whose run was never created is released once the claim's lease expired). Returns how many
 * sessions it looked at.
 */
export async function settleStaleSessions(cx: AgentContext, limit = 100): Promise<number> {
  const sessions = await runningSessions(cx.store, limit);
  for (const s of sessions) {
    try {
      await settleStaleTurn(cx, s);
    } catch {
      // Left for the session's next message, which reports what goes wrong.
    }
  }
  return sessions.length;
}

export function sessionBusy(session_id: string, now: SessionRow | null): NoemaError {
  return new NoemaError(
    'SESSION_BUSY',
    `session ${session_id} is ${now?.status ?? 'gone'}: one message at a time`,
    {
      status: 409,
      retryable: now?.status === 'running',
      details: { session_id, status: now?.status ?? null, run_id: now?.run_id ?? null },
      hint:
        now?.status === 'waiting'
          ? 'answer the ECS form with /ecs/respond and /ecs/continue first'
          : 'wait for the done event of the message in flight',
    },
  );
}

/**
 * The turn's opening creates its run claimed, in the opening's transaction. Should that claim have
 * been lost to the engine's memory (more runs opened here than it remembers before this one was
 * continued), `continueRun` claims it on its own: that claim does not wait for the disk. It tells
 * nobody anything (no session event goes with it) and precedes every call of the run, whose first
 * record commits synchronously and flushes it. A database server crash before then leaves the run
 * under the session's claim, as a process killed between the opening and the claim does; the turn is
 * taken over as then.
 */
const RUN_CLAIM = { durability: 'deferred' } as const;

export async function sendMessage(
  cx: AgentContext,
  session_id: string,
  input: unknown,
  onEvent: (e: SessionEvent) => void = () => {},
): Promise<TurnResult> {
  const r = validateCompiled<{ content: string; mode?: AgentMode }>(MESSAGE_SCHEMA, input);
  if (!r.ok)
    throw invalidInput(
      'message is invalid',
      { errors: r.errors },
      'send { "content": "…", "mode"?: "fast|deep|adapt" }',
    );
  const message = { content: r.value.content, mode: r.value.mode };
  // A session this process knows (its agent and user never change) is claimed without a read first;
  // a claim refused (busy, a stale turn to settle, gone) or a row that needs a read takes the path below.
  const known = knownSessions(cx.store).get(session_id);
  if (known) {
    const turn = await openTurn(cx, { session_id, ...known }, message, onEvent, undefined);
    if (turn) return turn;
  }
  const session = await getSessionOrThrow(cx.store, session_id);
  knownSessions(cx.store).set(session_id, { agent_hash: session.agent_hash, user_id: session.user_id });
  if (session.status === 'running') await settleStaleTurn(cx, session);
  // Read before the turn opens (a read of the previous run, outside the transaction) only for a
  // session that stores no reasoning yet; the claimed row's own reasoning, when it has one, wins inside.
  const carried = session.reasoning
    ? null
    : await previousReasoning(cx, session, session.run_id, r.value.content);
  const turn = await openTurn(cx, session, message, onEvent, carried);
  if (turn) return turn;
  throw sessionBusy(session_id, await findSession(cx.store, session_id));
}

/** Sessions' agent and user (never changed once created), per store handle, for `sendMessage`. */
const KNOWN_SESSIONS = 4096;
const knownSessions = lruPerHandle<string, { agent_hash: string; user_id: string }>(KNOWN_SESSIONS);

/**
 * Thrown in a turn's opening to roll it back: the claim was refused, or the session's row must be
 * read first.
 */
class NotOpened extends Error {}

/**
 * Opens the turn (claims the session `idle → running`) and drives it; null when the claim was
 * refused, or — `carried` undefined: the session was not read before — when the claimed row stores
 * no reasoning (its previous run must be read, outside the transaction): nothing was written then.
 */
async function openTurn(
  cx: AgentContext,
  session: Pick<SessionRow, 'session_id' | 'agent_hash' | 'user_id'>,
  message: { content: string; mode: AgentMode | undefined },
  onEvent: (e: SessionEvent) => void,
  carried: ReasoningContext | null | undefined,
): Promise<TurnResult | null> {
  const { session_id } = session;
  const def = await getAgent(cx.store, session.agent_hash);
  const graph = await graphOf(cx, def);
  const run_id = uuidv7();
  const rec = new SessionEventRecorder(cx.store, session_id, run_id, onEvent);
  const mode = message.mode ?? def.mode;
  const execution: ExecutionCore = {
    query: message.content,
    user_id: session.user_id,
    iteration: 0,
    max_iterations: def.max_iterations,
    mode,
    effective_mode: initialMode(mode),
    stop_reason: null,
    response: null,
    debug: false,
    seen_contracts: [],
  };
  const ref: SessionRef = { session_id, agent_hash: session.agent_hash, user_id: session.user_id };
  // From the claim on, this turn is in flight here: a second message must see it as busy.
  cx.driving.add(run_id);
  let opened: { claimed: SessionRow };
  try {
    // The turn opens in one transaction: the claim, the user's message, the `started` event and the
    // queued run. A process that dies after it leaves a run the reclaimer finishes; before it, nothing.
    opened = await rec.commitWith(async (tx, add, issued) => {
      const claim = { run_id, owner: cx.engine.owner, lease_ms: cx.claimLeaseMs };
      const claiming = claimSession(tx, session_id, 'idle', claim);
      // Issued with the claim (one round trip where the store pipelines); they run in this order, and
      // a claim refused rolls them back.
      const read = Promise.all([
        recentMessages(tx, session_id, def.memory.working_memory_turns * 2),
        appendMessage(tx, session_id, run_id, { role: 'user', content: message.content }),
        loadProfile(tx, session.user_id),
      ]);
      read.catch(() => {});
      const claimed = await claiming;
      if (!claimed) throw new NotOpened();
      if (!claimed.reasoning && carried === undefined) throw new NotOpened();
      const [history, , { profile }] = await read;
      const reasoning = claimed.reasoning
        ? await previousReasoning(cx, claimed, null, message.content)
        : (carried ?? newReasoningContext(message.content));
      // The run's first statement leaves with the `started` event after it (one round trip where the
      // store pipelines); its failure is still the opening's.
      issued(
        cx.engine.createRun(graph, {
          run_id,
          tx,
          // Created claimed, executed right after by `driveRun`: no claim transaction of its own.
          claim: true,
          input: {
            session: ref as unknown as Json,
            execution: execution as unknown as Json,
            reasoning: reasoning as unknown as Json,
            messages: { role: 'user', content: message.content, timestamp: new Date().toISOString() },
            history: history as unknown as Json,
            profile: (profile.interaction_count > 0 ? profile : null) as unknown as Json,
          },
        }),
      );
      await add('status', { phase: 'started' });
      return { claimed };
    });
  } catch (err) {
    cx.driving.delete(run_id);
    if (err instanceof NotOpened) return null;
    throw err;
  }
  const { claimed } = opened;
  return driveRun(
    cx,
    { ...claimed, status: 'running', run_id },
    run_id,
    () => cx.engine.continueRun(run_id, RUN_CLAIM),
    rec,
  );
}
