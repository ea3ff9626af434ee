/**
 * The agent routes of seed 000/002 as plain handlers (request parts in, `{ status, json }` or an SSE
 * frame stream out; refusals are thrown NoemaErrors), ready to be mounted as Route descriptors on
 * the Hono app once its route table and catalog land:
 *   POST /agents · POST /sessions · GET /sessions/:session_id · POST /sessions/:session_id/messages (SSE)
 *   GET /sessions/:session_id/events (SSE, Last-Event-ID) · POST /ecs/respond · POST /ecs/continue (SSE)
 *   GET /users/:user_id/profile · DELETE /users/:user_id
 */
import { invalidInput } from '../../core/errors.ts';
import type { AgentRuntime, SessionEvent } from '../../runtimes/agent/index.ts';
import { streamTurn, tailEvents } from '../../runtimes/agent/index.ts';
import type { Store } from '../../store/store.ts';
import { publishLive, withLive } from './live-text.ts';

export interface JsonAnswer {
  status: number;
  json: unknown;
}

export interface SseAnswer {
  status: 200;
  /** `text/event-stream` frames: `id:` (the per-session sequence id; none on `text_delta`), `event:`, `data:`. */
  frames: AsyncIterable<string>;
}

/** A live-only event (`text_delta`, id null) has no `id:` line, so it never moves Last-Event-ID. */
export function sseFrame(e: SessionEvent): string {
  const id = e.id === null ? '' : `id: ${e.id}\n`;
  return `${id}event: ${e.event}\ndata: ${JSON.stringify(e.data)}\n\n`;
}

async function* framesOf(events: AsyncIterable<SessionEvent>): AsyncGenerator<string> {
  for await (const e of events) yield sseFrame(e);
}

/**
 * The frames of a follower that may wait long between events: ending it (`return()`, as a closed
 * response does) or `signal` aborting wakes its wait, so it stops at once rather than at its next
 * event — an async generator cannot be returned from while it awaits.
 */
function followedFrames(
  follow: (signal: AbortSignal) => AsyncIterable<SessionEvent>,
  signal?: AbortSignal,
): AsyncIterable<string> {
  const stop = new AbortController();
  if (signal?.aborted) stop.abort();
  else signal?.addEventListener('abort', () => stop.abort(), { once: true });
  const frames = framesOf(follow(stop.signal));
  return {
    [Symbol.asyncIterator]: () => ({
      next: () => frames.next(),
      return: (value?: unknown) => {
        stop.abort();
        return frames.return(value as undefined);
      },
    }),
  };
}

/** `Last-Event-ID` (or `?after=`): a non-negative integer; anything else is INVALID_INPUT. */
export function parseLastEventId(value: string | null | undefined): number {
  if (value === null || value === undefined || value === '') return 0;
  if (!/^\d{1,15}$/.test(value))
    throw invalidInput('Last-Event-ID must be an event id (a non-negative integer)', { value });
  return Number(value);
}

export function agentHandlers(runtime: AgentRuntime, store: Store) {
  return {
    async putAgent(body: unknown): Promise<JsonAnswer> {
      const { hash, definition } = await runtime.putAgent(body);
      return { status: 201, json: { hash, label: definition.label, tools: definition.tools } };
    },
    async createSession(body: unknown): Promise<JsonAnswer> {
      return { status: 201, json: await runtime.createSession(body) };
    },
    async getSession(session_id: string, query: { max_messages?: string } = {}): Promise<JsonAnswer> {
      const max = query.max_messages === undefined ? undefined : Number(query.max_messages);
      if (max !== undefined && !(Number.isInteger(max) && max >= 1 && max <= 500))
        throw invalidInput('max_messages must be an integer from 1 to 500', {
          max_messages: query.max_messages,
        });
      return { status: 200, json: await runtime.getSession(session_id, max ? { max_messages: max } : {}) };
    },
    async postMessage(session_id: string, body: unknown): Promise<SseAnswer> {
      const turn = await streamTurn((onEvent) =>
        runtime.sendMessage(session_id, body, (e) => {
          onEvent(e);
          publishLive(session_id, e);
        }),
      );
      return { status: 200, frames: framesOf(turn.events) };
    },
    async events(
      session_id: string,
      lastEventId: string | null | undefined,
      signal?: AbortSignal,
    ): Promise<SseAnswer> {
      const after = parseLastEventId(lastEventId);
      await runtime.getSession(session_id, { max_messages: 1 }); // UNKNOWN_SESSION before the stream starts
      return {
        status: 200,
        frames: followedFrames(
          (stop) => withLive(session_id, tailEvents(store, session_id, { after, signal: stop }), stop),
          signal,
        ),
      };
    },
    async ecsRespond(body: unknown): Promise<JsonAnswer> {
      return { status: 200, json: await runtime.respondEcs(body) };
    },
    async ecsContinue(body: unknown): Promise<SseAnswer> {
      const turn = await streamTurn((onEvent) => runtime.continueEcs(body, onEvent));
      return { status: 200, frames: framesOf(turn.events) };
    },
    async getProfile(user_id: string): Promise<JsonAnswer> {
      return { status: 200, json: await runtime.getUserProfile(user_id) };
    },
    async deleteUser(user_id: string): Promise<JsonAnswer> {
      return { status: 200, json: await runtime.forgetUser(user_id) };
    },
  };
}
