/**
 * Ambient sources: `world.turn_ambient` runs every workflow's `once_per_turn` sources once; a
 * subject's `before_subject_workflow` sources visible to it run at the start of its workflow's first
 * generation (`performAmbient`, from `world.llm_tool_loop`; `world.subject_ambient`, the node that ran
 * them before, stays registered for attempts whose graph has it). Each call is an ExecutionContract performed through the sources executor
 * (`invocation_kind: ambient_context`), so a process continuing the attempt after a crash
 * replays finished calls from the journal instead of paying for them again. Results are context
 * only; any failure fails the attempt before commit (D3).
 */
import type { ErrorCode } from '../../../core/errors.ts';
import type { Json, NodeContext, NodeResult, NodeType } from '../../../engine/index.ts';
import type { Store } from '../../../store/store.ts';
import type { AmbientSourceBinding } from '../documents.ts';
import { renderRequest } from '../templates.ts';
import { type TurnContext, type TurnContexts, workingWorld } from '../turn-context.ts';
import type { WorkingWorld } from '../world-patch.ts';
import { type AmbientEntry, attemptLinks, channelsOf, templateContext, visibleTo } from './shared.ts';

async function invocationOf(store: Store, t: TurnContext, contractId: string): Promise<string | null> {
  const known = t.invoked.get(contractId);
  if (known !== undefined) return known;
  // Replayed (performed by an earlier process): attempt_id leads an index; contract_id has none.
  const row = await store.get<{ source_invocation_id: string }>(
    'SELECT source_invocation_id FROM source_invocations WHERE attempt_id = ? AND contract_id = ? ORDER BY invocation_seq DESC LIMIT 1',
    [t.attempt.attempt_id, contractId],
  );
  return row?.source_invocation_id ?? null;
}

/**
 * Performs `bindings` in order: their entries for the `ambient` channel, or the result that fails
 * the attempt. `acrossAttempts`: a retry of the node replays the calls an earlier attempt made.
 */
export async function performAmbient(
  store: Store,
  ctx: NodeContext<unknown>,
  t: TurnContext,
  bindings: Array<{ workflow_hash: string; binding: AmbientSourceBinding }>,
  subjectId: string | null,
  acrossAttempts = false,
): Promise<AmbientEntry[] | NodeResult> {
  const ch = channelsOf(ctx);
  const world = workingWorld(t, ch.patches);
  const entries: AmbientEntry[] = [];
  for (const { workflow_hash, binding: b } of bindings) {
    const where = `ambient source "${b.id}"`;
    let request: unknown;
    try {
      request = renderRequest(b.request_template, templateContext(t, subjectId, world), where);
    } catch (err) {
      return {
        kind: 'fail',
        code: (err as { code?: ErrorCode }).code ?? 'AMBIENT_TEMPLATE_PATH_MISSING',
        message: (err as Error).message,
      };
    }
    ctx.update({
      kind: 'ambient_source',
      ambient_source_id: b.id,
      subject_entity_id: subjectId,
      status: 'started',
    });
    const contract = await ctx.act(
      'ambient_context',
      {
        source_hash: b.source_ref.hash,
        request: request as Json,
        ...(b.result_schema_ref ? { result_schema_hash: b.result_schema_ref.hash } : {}),
        kind: 'ambient_context',
        links: {
          ...attemptLinks(ch.attempt, ctx.run_id),
          workflow_hash,
          ambient_source_id: b.id,
          workflow_subject_entity_id: subjectId,
          workflow_node_id: null,
        } as unknown as Json,
      },
      { key: `${workflow_hash.slice(0, 16)}:${b.id}`, acrossAttempts },
    );
    const source_invocation_id = await invocationOf(store, t, contract.contract_id);
    if (contract.status !== 'COMPLETED') {
      ctx.update({
        kind: 'ambient_source',
        ambient_source_id: b.id,
        subject_entity_id: subjectId,
        status: 'failed',
      });
      return {
        kind: 'fail',
        code: 'AMBIENT_SOURCE_FAILED',
        message: `${where} failed (source invocation ${source_invocation_id}): ${contract.error_message}`,
      };
    }
    ctx.update({
      kind: 'ambient_source',
      ambient_source_id: b.id,
      subject_entity_id: subjectId,
      status: 'succeeded',
    });
    entries.push({
      ambient_source_id: b.id,
      workflow_hash,
      run: b.run,
      subject_entity_id: subjectId,
      scope: b.scope,
      visible_to: b.visible_to,
      inject_as: b.inject_as,
      source_hash: b.source_ref.hash,
      source_invocation_id,
      result: contract.result,
    });
  }
  return entries;
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

export function turnAmbientNode(store: Store, contexts: TurnContexts): NodeType<Record<string, never>> {
  return {
    type: 'world.turn_ambient',
    description: 'Runs the once_per_turn ambient sources of every workflow in the scenario.',
    inputSchema: { type: 'object', additionalProperties: false },
    async execute(ctx) {
      const t = await contexts.get(channelsOf(ctx).attempt);
      const bindings = [...t.plan.workflows].flatMap(([workflow_hash, wf]) =>
        (wf.ambient_sources ?? [])
          .filter((b) => b.run === 'once_per_turn')
          .map((binding) => ({ workflow_hash, binding })),
      );
      return asResult(await performAmbient(store, ctx, t, bindings, null));
    },
  };
}

export function subjectAmbientNode(store: Store, contexts: TurnContexts): NodeType<{ subject: number }> {
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
      const t = await contexts.get(ch.attempt);
      const subject = t.plan.subjects[ctx.config.subject]!;
      ctx.update({ kind: 'subject', subject_entity_id: subject.entity_id, status: 'started' });
      const bindings = subjectBindings(t, subject, workingWorld(t, ch.patches));
      return asResult(await performAmbient(store, ctx, t, bindings, subject.entity_id));
    },
  };
}
