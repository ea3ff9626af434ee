/**
 * JSON Schemas of the world's authored documents (seed 004 shapes): cognition profiles,
 * environments, entities, scenarios, and the outer shape of cognition workflows (their inner
 * rules are checked by `assemble.ts`, which reports every problem at once).
 */

const HASH = { type: 'string', pattern: '^[0-9a-f]{64}$', description: 'sha256 content address.' };
export const HASH_REF = {
  type: 'object',
  required: ['hash'],
  additionalProperties: false,
  properties: { hash: HASH },
  description: 'A reference to a stored component: { "hash": "<sha256>" }.',
} as const;

export const HUMAN_LABEL = { type: 'string', pattern: '^[a-z0-9][a-z0-9_.-]{0,127}$' };
export const ENTITY_ID = { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$' };

/** Fields of the pre-cutover profile (perceive → intend → adjudicate), refused by name. */
export const OBSOLETE_PROFILE_FIELDS = [
  'perceive_system',
  'intend_system',
  'adjudicate_system',
  'adjudication_schema',
  'adjudication_retry_budget',
  'perceive_system_hash',
  'intend_system_hash',
  'adjudicate_system_hash',
  'adjudication_schema_hash',
] as const;

export const PROFILE_SCHEMA = {
  type: 'object',
  required: ['version', 'label', 'workflow_ref'],
  additionalProperties: false,
  properties: { version: { const: 1 }, label: HUMAN_LABEL, workflow_ref: HASH_REF },
} as const;

export const ENVIRONMENT_SCHEMA = {
  type: 'object',
  required: ['version', 'label', 'content'],
  additionalProperties: false,
  properties: { version: { const: 1 }, label: HUMAN_LABEL, content: { type: 'string', maxLength: 100_000 } },
} as const;

export const ENTITY_SCHEMA = {
  type: 'object',
  required: ['version', 'entity_id', 'kind', 'environment_label', 'state'],
  additionalProperties: false,
  properties: {
    version: { const: 1 },
    entity_id: ENTITY_ID,
    kind: { enum: ['agent', 'prop'] },
    environment_label: HUMAN_LABEL,
    state: { type: 'string', maxLength: 100_000 },
    memory: { type: 'string', maxLength: 1_000_000 },
  },
} as const;

export const SCENARIO_SCHEMA = {
  type: 'object',
  required: ['version', 'label', 'environments', 'entities', 'subjects'],
  additionalProperties: false,
  properties: {
    version: { const: 1 },
    label: HUMAN_LABEL,
    environments: { type: 'array', minItems: 1, maxItems: 1000, items: HASH_REF },
    entities: { type: 'array', minItems: 1, maxItems: 100_000, items: HASH_REF },
    subjects: {
      type: 'array',
      minItems: 1,
      maxItems: 10_000,
      items: {
        type: 'object',
        required: ['entity_id', 'cognition_profile_ref'],
        additionalProperties: false,
        properties: { entity_id: ENTITY_ID, cognition_profile_ref: HASH_REF },
      },
    },
    simulation: {
      type: 'object',
      required: ['start_time', 'minutes_per_turn'],
      additionalProperties: false,
      properties: {
        start_time: { type: 'string', format: 'date-time' },
        minutes_per_turn: { type: 'integer', minimum: 1, maximum: 525_600 },
      },
    },
  },
} as const;

/** Only the outer shape: the rest is assembly's job, so it can report every problem together. */
export const WORKFLOW_OUTER_SCHEMA = {
  type: 'object',
  required: ['version'],
  properties: {
    version: { type: 'integer' },
    ambient_sources: { type: 'array', maxItems: 100 },
    nodes: { type: 'array', maxItems: 100 },
  },
} as const;

export interface HashRef {
  hash: string;
}

export interface ProfileDoc {
  version: 1;
  label: string;
  workflow_ref: HashRef;
}

export interface EnvironmentDoc {
  version: 1;
  label: string;
  content: string;
}

export interface EntityDoc {
  version: 1;
  entity_id: string;
  kind: 'agent' | 'prop';
  environment_label: string;
  state: string;
  memory?: string;
}

export interface ScenarioDoc {
  version: 1;
  label: string;
  environments: HashRef[];
  entities: HashRef[];
  subjects: Array<{ entity_id: string; cognition_profile_ref: HashRef }>;
  simulation?: { start_time: string; minutes_per_turn: number };
}

export type AmbientRun = 'once_per_turn' | 'before_subject_workflow';
export type AmbientTarget =
  | 'world'
  | 'acting_subject'
  | 'all_subjects'
  | { environment_label: string }
  | { entity_id: string };

export interface AmbientSourceBinding {
  id: string;
  source_ref: HashRef;
  run: AmbientRun;
  scope: AmbientTarget;
  visible_to: AmbientTarget;
  request_template: unknown;
  result_schema_ref?: HashRef;
  inject_as: string;
}

export interface AvailableTool {
  name: string;
  description: string;
  source_ref: HashRef;
  arguments_schema_ref: HashRef;
  result_schema_ref?: HashRef;
  /**
   * The call may be made again when a crash left its outcome unknown (default false: it is not, and
   * the model is told its outcome is unknown).
   */
  idempotent?: boolean;
}

export interface LlmToolLoopNode {
  id: string;
  type: 'llm_tool_loop';
  llm_source_ref: HashRef;
  prompt_template: { messages: Array<{ role: 'system' | 'user' | 'assistant'; content: string }> };
  available_tools: AvailableTool[];
  max_generation_attempts: number;
  max_tool_calls: number;
  final_schema_ref: HashRef;
}

/** A workflow that passed assembly validation. */
export interface CognitionWorkflow {
  version: 1;
  execution: 'per_subject_ordered';
  ambient_sources: AmbientSourceBinding[];
  nodes: LlmToolLoopNode[];
  apply: { from: string };
}
