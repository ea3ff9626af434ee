/**
 * Ambient sources: `world.turn_ambient` runs every workflow's `once_per_turn` sources once; a
 * subject's `before_subject_workflow` sources visible to it run at the start of its workflow's first
 * generation (`performAmbient`, from `world.llm_tool_loop`; `world.subject_ambient`, the node that ran
 * them before, stays registered for attempts whose graph has it). Each call is made through the
 * sources layer as a durable `ambient_context` invocation, as a generation is (no ExecutionContract:
 * ambient sources are reads the workflow makes, not actions the model elects). A call that succeeded
 * is not made again in its attempt: not by a retry of the generation, and not by a process continuing
 * the attempt after a crash, which reads the attempt's succeeded ambient invocations back. Results are
 * context only; any failure fails the attempt before commit (D3).
 */
import type { ErrorCode } from '../../../core/errors.ts';
import type { Json, NodeContext, NodeResult, NodeType } from '../../../engine/index.ts';
import { invokeSource } from '../../../sources/index.ts';
import type { AmbientSourceBinding } from '../documents.ts';
import { renderRequest } from '../templates.ts';
import { type AmbientCall, ambientCallKey, type TurnContext, workingWorld } from '../turn-context.ts';
import type { WorkingWorld } from '../world-patch.ts';
import {
  type AmbientEntry,
  attemptLinks,
  type Channels,
  channelsOf,
  templateContext,
  visibleTo,
  type WorldNodeDeps,
} from './shared.ts';

/**
 * Performs `bindings` in order: their entries for the `ambient` channel, or the result that fails
 * the attempt. A binding that already succeeded in this attempt (`TurnContexts.ambientCalls`: made
 * by an earlier execution of the node, or by another process) is not called again.
 */
export async function performAmbient(
  deps: WorldNodeDeps,
  ctx: NodeContext<unknown>,
  ch: Channels,
  t: TurnContext,
  bindings: Array<{ workflow_hash: string; binding: AmbientSourceBinding }>,
  subjectId: string | null,
): Promise<AmbientEntry[] | NodeResult> {
  if (bindings.length === 0) return [];
  const world = workingWorld(t, ch.patches);
  const calls = await deps.contexts.ambientCalls(t, ctx.signal);
  const entries: AmbientEntry[] = [];
  for (const { workflow_hash, binding: b } of bindings) {
    const key = ambientCallKey(workflow_hash, b.id, subjectId);
    let call: AmbientCall | undefined = calls.get(key);
    if (!call) {
      const made = await callAmbient(deps, ctx, ch, t, { workflow_hash, b, subjectId, world });
      if (made.kind === 'failed') return made.result;
      call = made.call;
      calls.set(key, call);
    }
    entries.push({
      ambient_source_id: b.id,
      workflow_hash,
      run: b.run,
      subject_entity_id: subjectId,
      scope: b.scope,
      visible_to: b.visible_to,
      inject_as: b.inject_as,
      source_hash: b.source_ref.hash,
      source_invocation_id: call.source_invocation_id,
      result: call.result as Json,
    });
  }
  return entries;
}

/**
 * One ambient call, made directly through the sources layer (a durable `ambient_context` invocation,
 * as LLM generations are): its result, or the node result that fails the attempt (D3).
 */
async function callAmbient(
  deps: WorldNodeDeps,
  ctx: NodeContext<unknown>,
  ch: Channels,
  t: TurnContext,
  at: { workflow_hash: string; b: AmbientSourceBinding; subjectId: string | null; world: WorkingWorld },
): Promise<{ kind: 'made'; call: AmbientCall } | { kind: 'failed'; result: NodeResult }> {
  const { workflow_hash, b, subjectId } = at;
  const where = `ambient source "${b.id}"`;
  let request: unknown;
  try {
    request = renderRequest(b.request_template, templateContext(t, subjectId, at.world), where);
  } catch (err) {
    const code = (err as { code?: ErrorCode }).code ?? 'AMBIENT_TEMPLATE_PATH_MISSING';
    return { kind: 'failed', result: { kind: 'fail', code, message: (err as Error).message } };
  }
  const update = (status: 'started' | 'failed' | 'succeeded') =>
    ctx.update({ kind: 'ambient_source', ambient_source_id: b.id, subject_entity_id: subjectId, status });
  update('started');
  // The running row commits through the run (`ctx.records`): with the step the previous subject's
  // final generation left to commit with it (see `nextOpensWithAction`), fenced by the lease.
  const { store, contexts } = deps;
  const out = await invokeSource(
    store,
    {
      source: t.sources.get(b.source_ref.hash) ?? (await contexts.source(t, b.source_ref.hash)),
      request,
      kind: 'ambient_context',
      links: {
        ...attemptLinks(ch.attempt, ctx.run_id),
        workflow_hash,
        ambient_source_id: b.id,
        workflow_subject_entity_id: subjectId,
      },
      resultSchema: b.result_schema_ref ? await contexts.schema(t, b.result_schema_ref.hash) : null,
      signal: ctx.signal,
      env: deps.env(),
    },
    ctx.records,
  );
  if (!out.ok) {
    update('failed');
    const message = `${where} failed (source invocation ${out.source_invocation_id}): ${out.failure_class ?? 'failed'}: ${out.error?.message ?? 'source call failed'}`;
    return { kind: 'failed', result: { kind: 'fail', code: 'AMBIENT_SOURCE_FAILED', message } };
  }
  update('succeeded');
  return { kind: 'made', call: { source_invocation_id: out.source_invocation_id, result: out.output } };
}

/** The subject's `before_subject_workflow` bindings visible to it, in its workflow's order. */
export function subjectBindings(
  t: TurnContext,
  subject: { entity_id: string; workflow_hash: string },
  world: WorkingWorld,
): Array<{ workflow_hash: string; binding: AmbientSourceBinding }> {
  const wf = t.plan.workflows.get(subject.workflow_hash)!;
  return (wf.ambient_sources ?? [])
    .filter((b) => b.run === 'before_subject_workflow' && visibleTo(b.visible_to, subject.entity_id, world))
    .map((binding) => ({ workflow_hash: subject.workflow_hash, binding }));
}

const asResult = (r: AmbientEntry[] | NodeResult): NodeResult =>
  Array.isArray(r) ? { kind: 'ok', writes: { ambient: r as unknown as Json } } : r;

export function turnAmbientNode(deps: WorldNodeDeps): NodeType<Record<string, never>> {
  return {
    type: 'world.turn_ambient',
    description: 'Runs the once_per_turn ambient sources of every workflow in the scenario.',
    inputSchema: { type: 'object', additionalProperties: false },
    async execute(ctx) {
      const ch = channelsOf(ctx);
      const t = await deps.contexts.get(ch.attempt);
      const bindings = [...t.plan.workflows].flatMap(([workflow_hash, wf]) =>
        (wf.ambient_sources ?? [])
          .filter((b) => b.run === 'once_per_turn')
          .map((binding) => ({ workflow_hash, binding })),
      );
      return asResult(await performAmbient(deps, ctx, ch, t, bindings, null));
    },
  };
}

export function subjectAmbientNode(deps: WorldNodeDeps): NodeType<{ subject: number }> {
  return {
    type: 'world.subject_ambient',
    description: "Runs the acting subject's before_subject_workflow ambient sources visible to it.",
    inputSchema: {
      type: 'object',
      required: ['subject'],
      properties: { subject: { type: 'integer', minimum: 0 } },
    },
    async execute(ctx) {
      const ch = channelsOf(ctx);
      const t = await deps.contexts.get(ch.attempt);
      const subject = t.plan.subjects[ctx.config.subject]!;
      ctx.update({ kind: 'subject', subject_entity_id: subject.entity_id, status: 'started' });
      const bindings = subjectBindings(t, subject, workingWorld(t, ch.patches));
      return asResult(await performAmbient(deps, ctx, ch, t, bindings, subject.entity_id));
    },
  };
}
