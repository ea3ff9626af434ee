/**
 * ECSNode (seed 000): moves the `ecs_request` contract the ReasoningNode created from `PENDING` to
 * `WAITING` and the run suspends. The user's answer, validated against the form's field schema,
 * completes it (`WAITING → RUNNING → COMPLETED`) and the run continues at Reasoning.
 */
import type { NodeType } from '../../../engine/index.ts';

export function ecsNode(): NodeType<null> {
  return {
    type: 'ecs',
    description: 'Suspends the run on the pending ECS form (its ecs_request contract becomes WAITING).',
    execute(ctx) {
      const form = ctx.pending_executions
        .filter((c) => c.action_type === 'ecs_request' && c.status === 'PENDING')
        .at(-1);
      if (!form)
        return {
          kind: 'fail',
          code: 'ECS_NO_FORM',
          message: 'the ecs node ran without a pending ecs_request',
        };
      return { kind: 'suspend', wait_on: form.contract_id };
    },
  };
}
