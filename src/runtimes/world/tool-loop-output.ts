/**
 * ToolLoopOutput (seed 004 D5): what an `llm_tool_loop` generation returns — one tool call or
 * the final WorldPatch. Two schemas: the contract (alternatives told apart by `kind`, each tool's
 * own arguments schema and the WorldPatch schema, bounds included), which judges every output;
 * and the one sent to the model, in the strict subset (`core/strict-schema.ts`): one object whose
 * `kind` says which of its nullable `tool_call` / `patch` holds the answer.
 */
import { NoemaError } from '../../core/errors.ts';
import type { JsonSchema } from '../../core/schema-registry.ts';
import { fromStrictDelivery, strictDeliveryOf, toStrictDelivery } from '../../core/strict-delivery.ts';
import type { StrictViolation } from '../../core/strict-schema.ts';
import { WORLD_PATCH_SCHEMA } from './world-patch.ts';

export type ToolLoopOutput =
  | { kind: 'tool_call'; tool_call: { name: string; arguments: Record<string, unknown> } }
  | { kind: 'final_patch'; patch: { narration: string; effects: unknown[] } };

type FinalPatch = Extract<ToolLoopOutput, { kind: 'final_patch' }>;

/** What the model answers under the delivered schema. */
export interface ToolLoopDelivered {
  kind: 'tool_call' | 'final_patch';
  tool_call: { name: string; arguments: unknown } | null;
  patch: unknown;
}

type Tools = ReadonlyArray<{ name: string; arguments: JsonSchema }>;

const { $schema: _drop, ...patchSchema } = WORLD_PATCH_SCHEMA;

/** The contract: `tools` with their arguments schemas; no tools leaves only the final branch. */
export function composeToolLoopSchema(tools: Tools): JsonSchema {
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

/** The WorldPatch as a model is sent it: seed 004's schema converted to the strict subset. */
export const WORLD_PATCH_DELIVERY: Record<string, unknown> = strictDeliveryOf(
  WORLD_PATCH_SCHEMA,
  'WorldPatch',
);

const WRAPPED = '/properties/arguments';

/**
 * A tool's arguments schema as sent inside a tool call (not as a root: a free-form object may be a
 * string of JSON there), or every violation, with pointers into the arguments schema.
 */
export function toolArgumentsDelivery(
  args: JsonSchema,
): { ok: true; schema: JsonSchema } | { ok: false; violations: StrictViolation[] } {
  const d = toStrictDelivery({
    type: 'object',
    additionalProperties: false,
    required: ['arguments'],
    properties: { arguments: args },
  });
  if (d.ok) return { ok: true, schema: (d.schema.properties as Record<string, JsonSchema>).arguments! };
  return {
    ok: false,
    violations: d.violations.map((v) => ({ ...v, path: v.path.slice(WRAPPED.length) })),
  };
}

/**
 * The schema sent to the model. A tool whose arguments schema has no strict-subset form (a keyword
 * such as `allOf` or `$ref`) is refused: `INVALID_SCHEMA` naming the tool, the keyword's pointer
 * and the provider rule (scenario assembly refuses such a workflow first, `TOOL_SCHEMA_NOT_STRICT`).
 */
export function composeToolLoopDelivery(tools: Tools): JsonSchema {
  const calls = tools.map((t) => {
    const args = toolArgumentsDelivery(t.arguments);
    if (!args.ok) {
      const v = args.violations[0]!;
      throw new NoemaError(
        'INVALID_SCHEMA',
        `the arguments schema of tool "${t.name}" cannot be sent to a model: ${v.path || '/'} ${v.message}`,
        { details: { tool: t.name, violations: args.violations as never } },
      );
    }
    return {
      type: 'object',
      additionalProperties: false,
      required: ['name', 'arguments'],
      properties: { name: { type: 'string', enum: [t.name] }, arguments: args.schema },
    };
  });
  return {
    title: 'ToolLoopOutput',
    type: 'object',
    additionalProperties: false,
    required: ['kind', 'tool_call', 'patch'],
    properties: {
      kind: {
        type: 'string',
        enum: calls.length > 0 ? ['tool_call', 'final_patch'] : ['final_patch'],
        description:
          'tool_call: call one listed tool (patch null); final_patch: the WorldPatch (tool_call null).',
      },
      tool_call: calls.length > 0 ? { anyOf: [...calls, { type: 'null' }] } : { type: 'null' },
      patch: { anyOf: [WORLD_PATCH_DELIVERY, { type: 'null' }] },
    },
  };
}

/**
 * A delivered answer as the contract's ToolLoopOutput, or why it is not one: `kind` names the
 * branch that must be set, and the other must be null.
 */
export function decodeToolLoopOutput(
  delivered: ToolLoopDelivered,
  tools: Tools,
): { ok: true; output: ToolLoopOutput } | { ok: false; error: string } {
  if (delivered.kind === 'tool_call') {
    const call = delivered.tool_call;
    if (call === null) return { ok: false, error: 'kind is "tool_call" but tool_call is null' };
    if (delivered.patch !== null) return { ok: false, error: 'kind is "tool_call" but patch is not null' };
    const tool = tools.find((t) => t.name === call.name);
    const args = tool ? fromStrictDelivery(call.arguments, tool.arguments) : call.arguments;
    return {
      ok: true,
      output: {
        kind: 'tool_call',
        tool_call: { name: call.name, arguments: args as Record<string, unknown> },
      },
    };
  }
  if (delivered.patch === null) return { ok: false, error: 'kind is "final_patch" but patch is null' };
  if (delivered.tool_call !== null)
    return { ok: false, error: 'kind is "final_patch" but tool_call is not null' };
  const patch = fromStrictDelivery(delivered.patch, patchSchema) as FinalPatch['patch'];
  return { ok: true, output: { kind: 'final_patch', patch } };
}
