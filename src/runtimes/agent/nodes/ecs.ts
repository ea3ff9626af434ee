/**
 * ECSNode (seed 000): turns the ReasoningNode's `ecs_request` into an `ecs_request` contract that
 * waits (`PENDING → WAITING`) for the user's form answer; the run suspends. The answer, validated
 * against the form's field schema, completes the contract and the run continues at Reasoning.
 */
import type { Json, NodeType } from '../../../engine/index.ts';
import type { EcsForm } from '../reply-schema.ts';

export function ecsNode(): NodeType<null> {
  return {
    type: 'ecs',
    description: 'Suspends the run on an ECS form (a WAITING ecs_request contract).',
    execute(ctx) {
      const from = ctx.input_context.upstream_nodes.find(
        (u) => u.output && typeof u.output === 'object' && 'ecs_request' in (u.output as object),
      );
      const form = (from?.output as { ecs_request?: EcsForm } | undefined)?.ecs_request;
      if (!form)
        return { kind: 'fail', code: 'ECS_NO_FORM', message: 'the ecs node ran without an ecs_request' };
      return {
        kind: 'suspend',
        contract: {
          action_type: 'ecs_request',
          payload: {
            name: 'ecs_request',
            args: { title: form.title },
            form: form as unknown as Json,
            response_schema: form.fields as Json,
          },
        },
      };
    },
  };
}
