/** World catalog: put, get and list the content-addressed components, and assemble scenarios. */
import {
  assembleScenario,
  COMPONENT_KINDS,
  type ComponentKind,
  getComponent,
  getJsonSchema,
  getResponseSource,
  listComponents,
  listUsesOf,
  putCognitionProfile,
  putCognitionWorkflow,
  putEntity,
  putEnvironment,
  putJsonSchema,
  putResponseSource,
  WORLD_PATCH_SCHEMA_HASH,
  WORLD_PATCH_SCHEMA_LABEL,
} from '../../../../runtimes/world/index.ts';
import type { McpToolDef } from '../../tool.ts';
import { doc, hash, hashRef, limit, objectSchema } from './parts.ts';

type In = Record<string, unknown>;
const putOut = (r: { hash: string }) => ({ hash: r.hash });

const put = (
  name: string,
  what: string,
  field: string,
  fn: (store: never, d: unknown) => Promise<{ hash: string }>,
  description: string,
): McpToolDef => ({
  name,
  description: `${description} Content-addressed (sha256 of canonical JSON): putting the same document again returns the same hash and writes nothing. Returns { hash }.`,
  inputSchema: objectSchema({ [field]: doc(what) }, [field]),
  handler: async (input: In, { store }) => putOut(await fn(store as never, input[field])),
});

export const componentTools: McpToolDef[] = [
  put(
    'put_json_schema',
    'A JSON Schema (draft 2020-12); it must compile.',
    'schema',
    putJsonSchema as never,
    `Stores a JSON Schema (tool arguments, source results). The WorldPatch final schema needs no put: it is stored in every store (hash ${WORLD_PATCH_SCHEMA_HASH}).`,
  ),
  put(
    'put_response_source',
    'A source definition { version: 1, label?, interface: { name: "llm_chat_completions" | "http_json" | "mcp_tool", … } }; never URLs or secrets (they come from the environment).',
    'source',
    putResponseSource as never,
    'Stores a response source definition.',
  ),
  put(
    'put_cognition_workflow',
    'A workflow { version: 1, execution: "per_subject_ordered", ambient_sources: [...], nodes: [{ id, type: "llm_tool_loop", llm_source_ref, prompt_template, available_tools: [{ name, description, source_ref, arguments_schema_ref, result_schema_ref?, idempotent? (may be called again when a crash left its outcome unknown; default false) }], max_generation_attempts, max_tool_calls, final_schema_ref }], apply: { from: "<node>.final" } }. Every { hash } it references must already be stored; the full rules are checked by assemble_scenario.',
    'workflow',
    putCognitionWorkflow as never,
    'Stores a cognition workflow.',
  ),
  put(
    'put_cognition_profile',
    'A profile { version: 1, label, workflow_ref: { hash } }. The old perceive/intend/adjudicate fields are refused (OBSOLETE_PROFILE_SHAPE).',
    'profile',
    putCognitionProfile as never,
    'Stores a cognition profile: a label and the workflow its subjects run.',
  ),
  put(
    'put_environment',
    'An environment { version: 1, label, content }.',
    'environment',
    putEnvironment as never,
    'Stores an environment.',
  ),
  put(
    'put_entity',
    'An entity { version: 1, entity_id, kind: "agent" | "prop", environment_label, state, memory? } (props have no memory).',
    'entity',
    putEntity as never,
    'Stores an entity.',
  ),
  {
    name: 'assemble_scenario',
    description:
      'Validates and stores a scenario { version: 1, label, environments: [{hash}], entities: [{hash}], subjects: [{ entity_id, cognition_profile_ref: {hash} }], simulation?: { start_time, minutes_per_turn } }. Subjects run in the listed order. Every problem is reported at once (SCENARIO_INVALID with details.problems[] of { code, path, message }); nothing is stored then. Calls no source and no LLM. Returns { hash }.',
    inputSchema: objectSchema({ scenario: doc('The scenario document.') }, ['scenario']),
    handler: async (input, { store }) => putOut(await assembleScenario(store, input.scenario)),
  },
  {
    name: 'get_json_schema',
    description: `Returns a stored JSON Schema { hash, schema }. The WorldPatch schema every workflow's final_schema_ref names is stored in every store: hash ${WORLD_PATCH_SCHEMA_HASH} (listed by list_components kind json_schema with label "${WORLD_PATCH_SCHEMA_LABEL}").`,
    inputSchema: objectSchema({ hash }, ['hash']),
    handler: async (input, { store }) => ({ ...(await getJsonSchema(store, input.hash as string)) }),
  },
  {
    name: 'get_response_source',
    description: 'Returns a stored response source { hash, content }.',
    inputSchema: objectSchema({ hash }, ['hash']),
    handler: async (input, { store }) => ({ ...(await getResponseSource(store, input.hash as string)) }),
  },
  {
    name: 'get_cognition_workflow',
    description: 'Returns a stored cognition workflow { kind, hash, content, created_at }.',
    inputSchema: objectSchema({ hash }, ['hash']),
    handler: async (input, { store }) => ({
      ...(await getComponent(store, input.hash as string, 'cognition_workflow')),
    }),
  },
  {
    name: 'get_component',
    description: `Returns any stored component by hash { kind, hash, content, created_at }; kind (optional) is one of ${COMPONENT_KINDS.join(', ')}.`,
    inputSchema: objectSchema(
      {
        hash,
        kind: {
          type: 'string',
          enum: [...COMPONENT_KINDS],
          description: 'Restrict the lookup to this kind.',
        },
      },
      ['hash'],
    ),
    handler: async (input, { store }) => ({
      ...(await getComponent(store, input.hash as string, input.kind as ComponentKind | undefined)),
    }),
  },
  {
    name: 'list_components',
    description: `Lists stored components of one kind, newest first: { items: [{ kind, hash, label, created_at }], next_cursor, truncated }. JSON schemas have no label but the built-in WorldPatch schema's, "${WORLD_PATCH_SCHEMA_LABEL}" (hash ${WORLD_PATCH_SCHEMA_HASH}; stored in every store, listed last).`,
    inputSchema: objectSchema(
      {
        kind: { type: 'string', enum: [...COMPONENT_KINDS], description: 'Which kind to list.' },
        limit: limit(50, 200),
        cursor: { type: 'string', maxLength: 100, description: "The previous page's next_cursor." },
      },
      ['kind'],
    ),
    handler: async (input, { store }) => ({ ...(await listComponents(store, input as never)) }),
  },
  {
    name: 'list_uses_of',
    description:
      'Which stored components reference this hash directly (a profile → its workflow, a workflow → its sources and schemas, a scenario → its parts): { hash, used_by: [{ kind, hash }] }.',
    inputSchema: objectSchema({ hash }, ['hash']),
    handler: async (input, { store }) => ({ ...(await listUsesOf(store, input.hash as string)) }),
  },
];

export { hashRef };
