/**
 * Agent session routes (seeds 000 + 002; docs/agents.md): definitions, sessions, messages and ECS
 * continuations answered as Server-Sent Events, the session event stream resumable with
 * `Last-Event-ID`, and user profiles. Refusals are NoemaErrors answered before any stream starts.
 */
import { agentRuntimeFor, closeAgentRuntime } from '../agent-runtime.ts';
import { agentHandlers } from '../agents.ts';
import type { AppServices, Route, RouteContext } from '../route.ts';
import { sseResponse } from '../sse-frames.ts';

const OBJECT = { type: 'object' };
const pathParam = (name: string) => ({
  name,
  in: 'path' as const,
  required: true,
  schema: { type: 'string' },
});

export function agentRoutes(app: AppServices): Route[] {
  app.onClose?.(() => closeAgentRuntime(app.store));
  const handlers = async () => agentHandlers(await agentRuntimeFor(app.store), app.store);
  const json = (r: { status: number; json: unknown }) => ({ status: r.status, json: r.json });
  const signalOf = (ctx: RouteContext) => ctx.c.req.raw.signal;
  return [
    {
      method: 'POST',
      path: '/agents',
      summary: 'Store an agent definition (MCP tools discovered and pinned) → { hash, label, tools }',
      body: OBJECT,
      handle: async (ctx) => json(await (await handlers()).putAgent(await ctx.readJson())),
    },
    {
      method: 'POST',
      path: '/sessions',
      summary: 'Start a session with an agent: { agent_ref | agent_label, user_id } → { session_id }',
      body: OBJECT,
      handle: async (ctx) => json(await (await handlers()).createSession(await ctx.readJson())),
    },
    {
      method: 'POST',
      path: '/sessions/:session_id/messages',
      summary:
        'Send a message { content, mode? }; the turn streams as text/event-stream (one message at a time)',
      params: [pathParam('session_id')],
      body: OBJECT,
      async handle(ctx) {
        const h = await handlers();
        const answer = await h.postMessage(ctx.params.session_id ?? '', await ctx.readJson());
        return sseResponse(answer.frames, signalOf(ctx));
      },
    },
    {
      method: 'GET',
      path: '/sessions/:session_id/events',
      summary:
        'The session’s events as text/event-stream, replayed after Last-Event-ID, then every later turn’s as it runs',
      params: [
        pathParam('session_id'),
        {
          name: 'last_event_id',
          in: 'query',
          schema: { type: 'string' },
          description: 'as the Last-Event-ID header',
        },
      ],
      async handle(ctx) {
        const h = await handlers();
        const last = ctx.c.req.header('last-event-id') ?? ctx.c.req.query('last_event_id');
        const answer = await h.events(ctx.params.session_id ?? '', last, signalOf(ctx));
        // A follower stays open between turns: closed with the server's other streams on shutdown.
        return (
          app.events?.sse.fromFrames(answer.frames, signalOf(ctx)) ??
          sseResponse(answer.frames, signalOf(ctx))
        );
      },
    },
    {
      method: 'POST',
      path: '/ecs/respond',
      summary: 'Answer a waiting ECS form { session_id, contract_id, response } (validated against the form)',
      body: OBJECT,
      handle: async (ctx) => json(await (await handlers()).ecsRespond(await ctx.readJson())),
    },
    {
      method: 'POST',
      path: '/ecs/continue',
      summary:
        'Resume a session after its ECS answer { session_id }; the continuation streams as text/event-stream',
      body: OBJECT,
      async handle(ctx) {
        const answer = await (await handlers()).ecsContinue(await ctx.readJson());
        return sseResponse(answer.frames, signalOf(ctx));
      },
    },
    {
      method: 'GET',
      path: '/users/:user_id/profile',
      summary: 'The situated UserProfile of a user',
      params: [pathParam('user_id')],
      handle: async (ctx) => json(await (await handlers()).getProfile(ctx.params.user_id ?? '')),
    },
    {
      method: 'DELETE',
      path: '/users/:user_id',
      summary: 'Forget a user: delete the profile and every long-term memory of the user',
      params: [pathParam('user_id')],
      handle: async (ctx) => json(await (await handlers()).deleteUser(ctx.params.user_id ?? '')),
    },
  ];
}
