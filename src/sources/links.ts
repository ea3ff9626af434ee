/**
 * Checks what a caller passes as invocation linkage before anything is written, so a bad id or
 * turn is an INVALID_INPUT rather than a database constraint error.
 */

import { validateCompiled } from '../core/compiled-validators.ts';
import { invalidInput } from '../core/errors.ts';
import type { InvocationKind, InvocationLinks } from './source.ts';

const ID = { type: ['string', 'null'], minLength: 1, maxLength: 256 };
const POSITIVE = { type: ['integer', 'null'], minimum: 1 };

const LINKS_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  properties: {
    run_id: ID,
    attempt_id: ID,
    contract_id: ID,
    world_slug: ID,
    attempted_turn: POSITIVE,
    invocation_seq: POSITIVE,
    workflow_hash: { type: ['string', 'null'], pattern: '^[0-9a-f]{64}$' },
    workflow_node_id: ID,
    workflow_subject_entity_id: ID,
    ambient_source_id: ID,
    tool_name: ID,
    parent_source_invocation_id: ID,
    logical_generation_attempt: POSITIVE,
    tool_loop_round: { type: ['integer', 'null'], minimum: 0 },
    metadata: { type: 'object' },
  },
} as const;

const KIND = /^[a-z][a-z0-9_]{0,63}$/;

export function checkInvocationInput(kind: InvocationKind | string, links: InvocationLinks): void {
  if (typeof kind !== 'string' || !KIND.test(kind)) {
    throw invalidInput('invocation_kind must be a lower_snake name', { invocation_kind: kind });
  }
  const r = validateCompiled(LINKS_SCHEMA, links);
  if (!r.ok) throw invalidInput('invocation links are invalid', { errors: r.errors });
}
