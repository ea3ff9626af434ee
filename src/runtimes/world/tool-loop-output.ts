/**
 * ToolLoopOutput (seed 004 D5): what an `llm_tool_loop` generation returns — one tool call or
 * the final WorldPatch. The kernel composes its JSON Schema from the node's tools (each with its
 * arguments schema) and the WorldPatch schema; the LLM source delivers it per `schema_delivery`.
 */
import type { JsonSchema } from '../../core/schema-registry.ts';
import { WORLD_PATCH_SCHEMA } from './world-patch.ts';

export type ToolLoopOutput =
  | { kind: 'tool_call'; tool_call: { name: string; arguments: Record<string, unknown> } }
  | { kind: 'final_patch'; patch: { narration: string; effects: unknown[] } };

const { $schema: _drop, ...patchSchema } = WORLD_PATCH_SCHEMA;

/** `tools` with their arguments schemas; no tools (or no calls left) leaves only the final branch. */
export function composeToolLoopSchema(
  tools: ReadonlyArray<{ name: string; arguments: JsonSchema }>,
): JsonSchema {
  const final = {
    type: 'object',
    required: ['kind', 'patch'],
    additionalProperties: false,
    properties: { kind: { const: 'final_patch' }, patch: patchSchema },
  };
  const calls = tools.map((t) => ({
    type: 'object',
    required: ['kind', 'tool_call'],
    additionalProperties: false,
    properties: {
      kind: { const: 'tool_call' },
      tool_call: {
        type: 'object',
        required: ['name', 'arguments'],
        additionalProperties: false,
        properties: { name: { const: t.name }, arguments: t.arguments },
      },
    },
  }));
  return { title: 'ToolLoopOutput', anyOf: [...calls, final] };
}
