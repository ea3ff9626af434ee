/**
 * The canonical WorldPatch JSON Schema and its content address, apart from the code that applies
 * patches so the world's migrations (which store it in every store) load nothing else.
 */
import { canonicalJson } from '../../core/canonical-json.ts';
import { sha256Hex } from '../../core/hash.ts';

const text = (description: string, max = 20_000) => ({ type: 'string', maxLength: max, description });
const id = (description: string) => ({ type: 'string', minLength: 1, maxLength: 256, description });

/**
 * The canonical WorldPatch JSON Schema. A workflow's `final_schema_ref` must be this schema or
 * structurally equivalent to it (`schema-equivalence.ts`). Stored in every store by migration 515:
 * a change to it needs a migration that stores the new one.
 */
export const WORLD_PATCH_SCHEMA = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  title: 'WorldPatch',
  type: 'object',
  required: ['narration', 'effects'],
  additionalProperties: false,
  properties: {
    narration: text('What happened, in prose.'),
    effects: {
      type: 'array',
      maxItems: 100,
      items: {
        oneOf: [
          {
            type: 'object',
            required: ['op', 'entity_id', 'state'],
            additionalProperties: false,
            properties: {
              op: { const: 'set_entity_state' },
              entity_id: id('An entity of this world.'),
              state: text('The entity state after the effect.'),
            },
          },
          {
            type: 'object',
            required: ['op', 'entity_id', 'content'],
            additionalProperties: false,
            properties: {
              op: { const: 'append_entity_memory' },
              entity_id: id('An agent of this world (props have no memory).'),
              content: text('The memory line to append.'),
            },
          },
          {
            type: 'object',
            required: ['op', 'environment_label', 'content'],
            additionalProperties: false,
            properties: {
              op: { const: 'set_environment_content' },
              environment_label: id('An environment of this world.'),
              content: text('The environment content after the effect.'),
            },
          },
        ],
      },
    },
  },
} as const;

/** The schema's canonical JSON, as `json_schemas` stores it. */
export const WORLD_PATCH_SCHEMA_TEXT = canonicalJson(WORLD_PATCH_SCHEMA);
export const WORLD_PATCH_SCHEMA_HASH = sha256Hex(WORLD_PATCH_SCHEMA_TEXT);

/** The stable name the built-in schema is listed under (`list_components`), as bundles name it (`{ "builtin": "WorldPatch" }`). */
export const WORLD_PATCH_SCHEMA_LABEL = 'WorldPatch';
