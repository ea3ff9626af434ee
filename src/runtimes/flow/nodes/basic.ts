/** The plain node types: `start` (emits the run input), `llm` (a prompt over the incoming context), `end`. */
import type { Json } from '../../../engine/index.ts';
import type { FlowNodeImpl } from '../run/flow-node.ts';
import { callModel } from '../run/llm.ts';

/** Emits the run input; `input.attachments` (an array of references) become the node's attachments. */
export const startNode: FlowNodeImpl = async ({ incoming }) => {
  const input = incoming.input;
  const attachments =
    typeof input === 'object' && input !== null && !Array.isArray(input) && Array.isArray(input.attachments)
      ? input.attachments
      : undefined;
  return { output: input, routing_state: {}, ...(attachments ? { attachments } : {}) };
};

/** An end node's output is what reached it: its triggering predecessors' outputs by node id. */
export const endNode: FlowNodeImpl = async ({ incoming }) => ({
  output: Object.fromEntries(incoming.upstream_nodes.map((u) => [u.node_id, u.output])) as Json,
  routing_state: {},
});

/** Any JSON object; `config.output_schema` narrows it. */
const ANY_OBJECT = { type: 'object' };

export const llmNode: FlowNodeImpl = async ({ ctx, rt, node, incoming }) => {
  const c = node.config;
  const output = await callModel(ctx, rt, {
    ...(typeof c.model === 'string' ? { model: c.model } : {}),
    system: `${c.prompt as string}\nAnswer with one JSON object.`,
    user: JSON.stringify({
      input: incoming.input,
      upstream: incoming.upstream,
      attachments: incoming.propagated_attachments,
    }),
    schema: (c.output_schema as Record<string, unknown> | undefined) ?? ANY_OBJECT,
    schema_name: 'flow_llm_output',
    key: 'llm',
  });
  return { output, routing_state: {} };
};
