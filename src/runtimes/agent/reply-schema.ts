/**
 * The JSON reply of the ReasoningNode: one schema merging seed 000 (response, tool call, ECS request,
 * memory_update) and seed 002 (thinking, tool_calls, context_updates, switch_mode). Also the schemas
 * of the EmotionNode and of the ImpressionSynthesizer's two calls.
 */
import type { JsonSchema } from '../../core/schema-registry.ts';
import { strictDeliveryOf } from '../../core/strict-delivery.ts';

export interface ToolCallRequest {
  name: string;
  args: Record<string, unknown>;
}

export interface EcsForm {
  title: string;
  description: string;
  /** JSON Schema (an object schema) the user's answer must match. */
  fields: Record<string, unknown>;
}

export interface MemoryUpdate {
  text: string;
  kind?: string;
}

export interface ReasoningReply {
  thinking: string;
  response?: string | null;
  tool_calls?: ToolCallRequest[];
  ecs_request?: EcsForm | null;
  memory_update?: MemoryUpdate[];
  context_updates?: {
    goal?: string;
    strategy?: string;
    insights?: string[];
    facts?: Record<string, unknown>;
  };
  switch_mode?: 'fast' | 'deep' | 'adapt' | null;
}

export const REASONING_REPLY_SCHEMA: JsonSchema = {
  title: 'ReasoningReply',
  type: 'object',
  required: ['thinking'],
  additionalProperties: false,
  properties: {
    thinking: { type: 'string', description: 'Your reasoning for this step.' },
    response: {
      type: ['string', 'null'],
      description: 'The answer to the user, when ready; it ends the interaction.',
    },
    tool_calls: {
      type: 'array',
      maxItems: 8,
      items: {
        type: 'object',
        required: ['name', 'args'],
        additionalProperties: false,
        properties: { name: { type: 'string', minLength: 1 }, args: { type: 'object' } },
      },
    },
    ecs_request: {
      description: 'A form for the user (ECS): the run waits for the answer.',
      oneOf: [
        { type: 'null' },
        {
          type: 'object',
          required: ['title', 'description', 'fields'],
          additionalProperties: false,
          properties: {
            title: { type: 'string', minLength: 1 },
            description: { type: 'string' },
            fields: { type: 'object', description: 'JSON Schema of the answer (type object).' },
          },
        },
      ],
    },
    memory_update: {
      type: 'array',
      maxItems: 10,
      items: {
        type: 'object',
        required: ['text'],
        additionalProperties: false,
        properties: { text: { type: 'string', minLength: 1, maxLength: 4000 }, kind: { type: 'string' } },
      },
    },
    context_updates: {
      type: 'object',
      additionalProperties: false,
      properties: {
        goal: { type: 'string' },
        strategy: { type: 'string' },
        insights: { type: 'array', items: { type: 'string' } },
        facts: { type: 'object' },
      },
    },
    switch_mode: { enum: ['fast', 'deep', 'adapt', null] },
  },
};

export interface EmotionReading {
  emotion: string;
  intensity: number;
  modulation: string;
}

export const EMOTION_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['emotion', 'intensity', 'modulation'],
  additionalProperties: false,
  properties: {
    emotion: { type: 'string', minLength: 1 },
    intensity: { type: 'number', minimum: 0, maximum: 1 },
    modulation: { type: 'string', description: 'How the agent should adapt its tone.' },
  },
};

export const INSIGHTS_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    preferences: { type: 'object' },
    goals: { type: 'array', items: { type: 'string' } },
    expertise: { type: 'array', items: { type: 'string' } },
    communication_style: { type: 'string' },
    project_context: { type: 'object', additionalProperties: { type: 'string' } },
    success_pattern: { type: 'string' },
    failure_pattern: { type: 'string' },
  },
};

export const SYNTHESIS_SCHEMA: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    preferences: { type: 'object' },
    goals: { type: 'array', items: { type: 'string' } },
    expertise_areas: { type: 'array', items: { type: 'string' } },
    communication_style: { type: 'string' },
    projects: { type: 'object', additionalProperties: { type: 'string' } },
    interests: { type: 'array', items: { type: 'string' } },
    constraints: { type: 'array', items: { type: 'string' } },
    success_patterns: { type: 'array', items: { type: 'string' } },
    failure_patterns: { type: 'array', items: { type: 'string' } },
  },
};

/**
 * The schemas above as a model is sent them (the strict subset, `core/strict-delivery.ts`): every
 * property present (optional ones nullable), `args`, `fields`, `facts` and `preferences` as strings
 * of JSON, `project_context` and `projects` as `{key, value}` pairs, no bounds. The schemas above
 * stay the contract: a reply is read back (`fromStrictDelivery`) and validated against them.
 */
export const REASONING_REPLY_DELIVERY = strictDeliveryOf(REASONING_REPLY_SCHEMA, 'ReasoningReply');
export const EMOTION_DELIVERY = strictDeliveryOf(EMOTION_SCHEMA, 'EmotionReading');
export const INSIGHTS_DELIVERY = strictDeliveryOf(INSIGHTS_SCHEMA, 'InteractionInsights');
export const SYNTHESIS_DELIVERY = strictDeliveryOf(SYNTHESIS_SCHEMA, 'ProfileSynthesis');
