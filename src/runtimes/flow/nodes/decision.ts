/**
 * The decision node (seed 003): one condition per solid outgoing connector. Deterministic
 * `{ path, equals | in | exists }` conditions are evaluated here; `condition_text` ones by the
 * node's model in one strict-JSON call. No MCP dependency. Routes to every matched connector;
 * `no_match` fails the node (the artifact still says so).
 */
import { canonicalJson } from '../../../core/canonical-json.ts';
import type { Json } from '../../../engine/index.ts';
import { type IncomingDoc, jsonPointer } from '../run/context.ts';
import type { FlowNodeImpl } from '../run/flow-node.ts';
import { callModel } from '../run/llm.ts';
import type { DeterministicCondition } from '../types.ts';

interface Condition {
  connector_id: string;
  condition_text: string;
  route_key: string | null;
  condition: DeterministicCondition | null;
}

interface Evaluation {
  connector_id: string;
  condition_text: string;
  matched: boolean;
  reason: string;
}

export function evaluateCondition(
  c: DeterministicCondition,
  doc: IncomingDoc,
): { matched: boolean; reason: string } {
  const v = jsonPointer(doc, c.path);
  if (c.exists !== undefined) {
    const matched = (v !== undefined) === c.exists;
    return { matched, reason: `${c.path} ${v === undefined ? 'does not exist' : 'exists'}` };
  }
  const shown = v === undefined ? 'missing' : JSON.stringify(v);
  if (c.in !== undefined) {
    const matched = v !== undefined && c.in.some((x) => canonicalJson(x) === canonicalJson(v));
    return {
      matched,
      reason: `${c.path} = ${shown} ${matched ? 'is' : 'is not'} in ${JSON.stringify(c.in)}`,
    };
  }
  const matched = v !== undefined && canonicalJson(v) === canonicalJson(c.equals);
  return { matched, reason: `${c.path} = ${shown} ${matched ? '==' : '!='} ${JSON.stringify(c.equals)}` };
}

export const EVAL_SCHEMA = {
  type: 'object',
  required: ['evaluations'],
  properties: {
    evaluations: {
      type: 'array',
      items: {
        type: 'object',
        required: ['connector_id', 'matched', 'reason'],
        properties: {
          connector_id: { type: 'string' },
          matched: { type: 'boolean' },
          reason: { type: 'string' },
        },
      },
    },
  },
};

export const decisionNode: FlowNodeImpl = async ({ ctx, rt, node, incoming }) => {
  const conditions = (node.config.conditions as unknown as Condition[] | undefined) ?? [];
  const evaluations: Evaluation[] = [];
  const textual = conditions.filter((c) => !c.condition);
  let llmAnswers = new Map<string, { matched: boolean; reason: string }>();
  if (textual.length > 0) {
    const out = (await callModel(ctx, rt, {
      ...(typeof node.config.model === 'string' ? { model: node.config.model } : {}),
      system:
        'Evaluate each condition against the context. Answer with one JSON object {"evaluations": [{"connector_id", "matched": boolean, "reason"}]}, one entry per condition.',
      user: JSON.stringify({
        conditions: textual.map((c) => ({ connector_id: c.connector_id, condition_text: c.condition_text })),
        context: { input: incoming.input, upstream: incoming.upstream },
      }),
      schema: EVAL_SCHEMA,
      schema_name: 'decision_evaluations',
      key: 'decision',
    })) as { evaluations: Array<{ connector_id: string; matched: boolean; reason: string }> };
    llmAnswers = new Map(
      out.evaluations.map((e) => [e.connector_id, { matched: e.matched, reason: e.reason }]),
    );
  }
  for (const c of conditions) {
    const r = c.condition
      ? evaluateCondition(c.condition, incoming)
      : (llmAnswers.get(c.connector_id) ?? {
          matched: false,
          reason: 'the model gave no evaluation for this connector',
        });
    evaluations.push({
      connector_id: c.connector_id,
      condition_text: c.condition_text,
      matched: r.matched,
      reason: r.reason,
    });
  }
  const matched = evaluations.filter((e) => e.matched).map((e) => e.connector_id);
  const first = node.outgoing.find((o) => o.connector_id === matched[0]);
  const resolved_route_key = first ? (first.route_key ?? first.connector_id) : null;
  const resolved_route_path = first ? `${node.flowchart_node_id} -> ${first.target_node_id}` : null;
  const no_match = matched.length === 0;
  const routing_state: Json = {
    route: matched,
    matched_connector_ids: matched,
    resolved_route_key,
    resolved_route_path,
    no_match,
  };
  const payload: Record<string, Json> = {
    matched_connector_ids: matched,
    evaluations: evaluations as unknown as Json,
    no_match,
    resolved_route_key,
    resolved_route_path,
    routing_state,
  };
  return {
    output: { matched_connector_ids: matched, no_match, resolved_route_key, resolved_route_path },
    routing_state,
    route: matched,
    artifact: { artifact_type: 'decision', payload },
    ...(no_match
      ? {
          fail: {
            code: 'DECISION_NO_MATCH',
            message: `decision node ${node.flowchart_node_id}: no condition matched`,
          },
        }
      : {}),
  };
};
