/** World catalog: attempts, audit events and source invocations — why every change happened. */
import { getAttempt, listAttempts, listAuditEvents } from '../../../../runtimes/world/index.ts';
import { getLlmCall, getSourceInvocation, listSourceInvocations } from '../../../../sources/index.ts';
import type { McpToolDef } from '../../tool.ts';
import { limit, objectSchema, turn, worldSlug } from './parts.ts';

const uuid = (description: string) =>
  ({
    type: 'string',
    pattern: '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$',
    description,
  }) as const;

export const historyTools: McpToolDef[] = [
  {
    name: 'list_attempts',
    description:
      'Attempts of a world, newest first, with status, attempted_turn, failure and the source summary.',
    inputSchema: objectSchema({ world_slug: worldSlug, limit: limit(50, 200) }, ['world_slug']),
    handler: async (input, { store }) => ({ ...(await listAttempts(store, input as never)) }),
  },
  {
    name: 'get_attempt',
    description:
      'One attempt: status, failure, summary (source_invocation_count, last_source_invocation_id, source_trace_summary), its patches with their per-patch transitions ({ op, target, state_before, state_after }; state_before is the state just before that patch), and its source invocations in order.',
    inputSchema: objectSchema({ attempt_id: uuid('The attempt id (from run_turn or list_attempts).') }, [
      'attempt_id',
    ]),
    handler: async (input, { store }) => ({ ...(await getAttempt(store, input as never)) }),
  },
  {
    name: 'list_audit_events',
    description:
      'Audit events of a world (one world_patch_applied per accepted patch, with touched entities and its transitions { op, target, state_before, state_after }, and one turn_committed per turn), oldest first.',
    inputSchema: objectSchema(
      {
        world_slug: worldSlug,
        turn: turn('Only this turn.'),
        attempt_id: uuid('Only this attempt.'),
        limit: limit(100, 500),
        cursor: { type: 'integer', minimum: 0, description: "The previous page's next_cursor." },
      },
      ['world_slug'],
    ),
    handler: async (input, { store }) => ({ ...(await listAuditEvents(store, input as never)) }),
  },
  {
    name: 'list_source_invocations',
    description:
      'Source invocations (LLM generations, ambient context calls, model-elected tools), newest first; filter by world, attempt, kind, status or source.',
    inputSchema: objectSchema({
      world_slug: worldSlug,
      attempt_id: uuid('Only this attempt.'),
      invocation_kind: {
        type: 'string',
        enum: ['llm_generation', 'ambient_context', 'model_elected_tool'],
        description: 'Only this kind.',
      },
      status: {
        type: 'string',
        enum: ['running', 'succeeded', 'failed', 'interrupted'],
        description: 'Only this status.',
      },
      source_hash: { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'Only this response source.' },
      limit: limit(50, 200),
      cursor: uuid("The previous page's next_cursor."),
    }),
    handler: async (input, { store }) => ({ ...(await listSourceInvocations(store, input as never)) }),
  },
  {
    name: 'get_source_invocation',
    description:
      'One source invocation in full (request, response, status, failure, validation, provenance); with include_llm_call, the linked LLM call (messages, chunks, artifacts).',
    inputSchema: objectSchema(
      {
        source_invocation_id: uuid('The source invocation id.'),
        include_llm_call: {
          type: 'boolean',
          description: 'Also return the linked llm_calls trace (default false).',
        },
      },
      ['source_invocation_id'],
    ),
    handler: async (input, { store }) => {
      const record: Record<string, unknown> = await getSourceInvocation(
        store,
        input.source_invocation_id as string,
      );
      if (input.include_llm_call && typeof record.llm_call_id === 'string')
        record.llm_call = await getLlmCall(store, record.llm_call_id, { maxChunks: 200 });
      return record;
    },
  },
];
