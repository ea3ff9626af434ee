/**
 * The plan node (seed 003): `deterministic` takes `patch` / `patch_source_path` (a JSON pointer into
 * the incoming context), `llm_guided` asks the model for a strict JSON patch; both go through the one
 * deterministic applier under the node's `store_mode`, with retries, one fallback hop and the
 * `mode_fallback_used` markers. The plan write commits with the artifact and the node run.
 */
import { NoemaError } from '../../../core/errors.ts';
import type { Json } from '../../../engine/index.ts';
import type { Transaction } from '../../../store/store.ts';
import { applyPlanPatch, checkPatch } from '../plan/applier.ts';
import { findPlan, issuePlanWrite, lockPlan } from '../plan/store.ts';
import { jsonPointer } from '../run/context.ts';
import type { FlowNodeImpl, FlowOutcome } from '../run/flow-node.ts';
import { callModel } from '../run/llm.ts';
import { runWithFallback } from '../run/modes.ts';
import type { NodeMode, PlanStoreMode } from '../types.ts';

const text = { type: 'string' };
const TASK = {
  type: 'object',
  properties: { task_id: text, task_key: text, title: text, status: text, description: text },
};
const STAGE = {
  type: 'object',
  properties: {
    stage_id: text,
    stage_key: text,
    title: text,
    status: text,
    description: text,
    tasks: { type: 'array', items: TASK },
  },
};
/** A plan patch (`plan/applier.ts`): stages with their tasks, and tasks that name their stage. */
export const PATCH_SCHEMA = {
  type: 'object',
  properties: {
    stages: { type: 'array', items: STAGE },
    tasks: {
      type: 'array',
      items: { ...TASK, properties: { ...TASK.properties, stage_id: text, stage_key: text } },
    },
  },
  additionalProperties: false,
};

const STORE_MODE_HELP: Record<PlanStoreMode, string> = {
  append: 'append: list only new stages/tasks to add; existing ones are never changed.',
  replace: 'replace: give the whole new plan in "stages"; it overwrites the current one.',
  update:
    'update: target existing stages/tasks by stage_id/task_id (or stage_key/task_key) and give only changed fields.',
};

export const planNode: FlowNodeImpl = async ({ ctx, rt, run, node, incoming }) => {
  const c = node.config;
  const storeMode = c.store_mode as PlanStoreMode;
  const planKey = typeof c.plan_key === 'string' && c.plan_key !== '' ? c.plan_key : node.flowchart_node_id;
  const additive = typeof c.additive_prompt === 'string' ? c.additive_prompt : '';
  const current = await findPlan(rt.store, run.flowchart_id, planKey);
  const currentPlan = current?.plan ?? { stages: [] };
  const nextSeq = current?.next_seq ?? 1;

  let transform: Json | null = null;
  const r = await runWithFallback(
    {
      mode: c.mode as NodeMode,
      retry_count: Number(c.retry_count ?? 1),
      fallback_enabled: c.fallback_enabled !== false,
    },
    async (mode, key) => {
      let patch: Json | undefined;
      if (mode === 'deterministic') {
        if (typeof c.patch_source_path === 'string' && c.patch_source_path !== '') {
          patch = jsonPointer(incoming, c.patch_source_path);
          if (patch === undefined)
            throw new NoemaError(
              'PLAN_PATCH_MISSING',
              `patch_source_path ${c.patch_source_path} is not in the incoming context`,
            );
        } else patch = c.patch;
        if (patch === undefined)
          throw new NoemaError(
            'PLAN_PATCH_MISSING',
            'deterministic mode needs config.patch or patch_source_path',
          );
        if (typeof c.llm_transform_prompt === 'string' && c.llm_transform_prompt.trim() !== '') {
          // The optional LLM transform: the model rewrites the configured patch; the applier stays deterministic.
          checkPatch(patch);
          const input = patch;
          patch = await callModel(ctx, rt, {
            ...(typeof c.model === 'string' ? { model: c.model } : {}),
            system: `Transform this plan patch as instructed and answer with the resulting patch as one JSON object {"stages": [...], "tasks"?: [...]}.\n${c.llm_transform_prompt}`,
            user: JSON.stringify({ patch: input, input: incoming.input, upstream: incoming.upstream }),
            schema: PATCH_SCHEMA,
            schema_name: 'plan_patch_transform',
            key: `${key}-transform`,
          });
          transform = { prompt: c.llm_transform_prompt, input_patch: input, output_patch: patch };
        }
      } else {
        patch = await callModel(ctx, rt, {
          ...(typeof c.model === 'string' ? { model: c.model } : {}),
          system: `You maintain a plan of stages and tasks. Answer with one JSON object, the patch: {"stages": [...], "tasks"?: [...]}. Store mode ${STORE_MODE_HELP[storeMode]}${additive ? `\n${additive}` : ''}`,
          user: JSON.stringify({
            current_plan: currentPlan,
            input: incoming.input,
            upstream: incoming.upstream,
          }),
          schema: PATCH_SCHEMA,
          schema_name: 'plan_patch',
          key,
        });
      }
      checkPatch(patch);
      // Dry run now, so a bad patch fails this attempt (and may fall back) rather than the commit.
      applyPlanPatch(currentPlan, patch, storeMode, nextSeq);
      return patch as Json;
    },
  );

  return async (tx: Transaction): Promise<FlowOutcome> => {
    const now = new Date(rt.now()).toISOString();
    const locked = await lockPlan(tx, run.flowchart_id, planKey, now);
    const applied = applyPlanPatch(locked.plan, r.value, storeMode, locked.next_seq);
    // Issued with the node's artifact and finish, and the COMMIT: one round trip where pipelined.
    issuePlanWrite(tx, locked.plan_id, applied.plan, applied.next_seq, now);
    const degraded = r.fallback
      ? { mode_fallback_used: true, ...r.fallback }
      : { mode_fallback_used: false, failed_mode: null, fallback_mode: null, fallback_reason: null };
    const routing_state: Json = { executed_mode: r.mode, attempts: r.attempts as unknown as Json };
    const evidence = {
      plan_id: locked.plan_id,
      mode: c.mode as string,
      store_mode: storeMode,
      operation_counts: applied.operation_counts as unknown as Json,
      touched: applied.touched as unknown as Json,
      warnings: applied.warnings,
      errors: applied.errors,
      ...degraded,
    };
    const payload: Record<string, Json> = {
      ...evidence,
      action_results: [{ plan_id: locked.plan_id, plan_key: planKey, applied_patch: r.value }] as Json,
      additive_prompt: additive,
      plan: applied.plan as unknown as Json,
      routing_state,
      ...(transform && r.mode === 'deterministic' ? { llm_transform_summary: transform } : {}),
    };
    return {
      output: { ...evidence, plan: applied.plan as unknown as Json },
      routing_state,
      artifact: { artifact_type: 'plan', payload, plan_id: locked.plan_id },
    };
  };
};
