/** The milestone node (seed 003): `create_or_update` or `mark_complete`, with before/after snapshots. */
import type { Json } from '../../../engine/index.ts';
import type { Transaction } from '../../../store/store.ts';
import { applyMilestone } from '../milestones.ts';
import type { FlowNodeImpl, FlowOutcome } from '../run/flow-node.ts';

export const milestoneNode: FlowNodeImpl = async ({ rt, run, node }) => {
  const c = node.config;
  const action = c.action as 'create_or_update' | 'mark_complete';
  const key =
    typeof c.milestone_key === 'string' && c.milestone_key !== '' ? c.milestone_key : node.flowchart_node_id;
  const additive = typeof c.additive_prompt === 'string' ? c.additive_prompt : '';
  return async (tx: Transaction): Promise<FlowOutcome> => {
    const change = await applyMilestone(tx, {
      flowchart_id: run.flowchart_id,
      key,
      action,
      title: typeof c.title === 'string' ? c.title : node.title || key,
      description: typeof c.description === 'string' ? c.description : additive,
      now: new Date(rt.now()).toISOString(),
    });
    const routing_state: Json = { checkpoint_hit: change.checkpoint_hit };
    const payload: Record<string, Json> = {
      action,
      action_results: [
        { milestone_id: change.milestone.milestone_id, status: change.milestone.status },
      ] as Json,
      additive_prompt: additive,
      checkpoint_hit: change.checkpoint_hit,
      before_milestone: change.before_milestone as unknown as Json,
      milestone: change.milestone as unknown as Json,
      routing_state,
    };
    return {
      output: {
        action,
        checkpoint_hit: change.checkpoint_hit,
        milestone: change.milestone as unknown as Json,
      },
      routing_state,
      artifact: { artifact_type: 'milestone', payload, milestone_id: change.milestone.milestone_id },
    };
  };
};
