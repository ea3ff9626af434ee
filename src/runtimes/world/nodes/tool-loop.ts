/**
 * `world.llm_tool_loop`: one generation of a subject's `llm_tool_loop` per execution. The model
 * answers a ToolLoopOutput; a tool call (validated: listed, arguments match) is recorded in the
 * loop with its contract payload and performed at the start of the node's next generation (or by
 * `world.tool`, in graphs that have it); a final patch is validated against the live working world
 * and — for the node `apply.from` names — staged with its patch_seq and per-patch transitions. Model-content failures return `retry_generation` (the engine's one retry lane:
 * same node, source and contract, corrective context appended, each attempt a new LLM call).
 */

import { validateCompiled } from '../../../core/compiled-validators.ts';
import type { ErrorCode } from '../../../core/errors.ts';
import type { JsonSchema } from '../../../core/schema-registry.ts';
import { type Json, type NodeResult, type NodeType, retryingSame } from '../../../engine/index.ts';
import {
  correctiveFor,
  type FailureClass,
  invokeSource,
  RETRY_BY_CLASS,
  setModelOutputKind,
} from '../../../sources/index.ts';
import type { Store } from '../../../store/store.ts';
import type { AvailableTool, LlmToolLoopNode } from '../documents.ts';
import {
  composeToolLoopDelivery,
  decodeToolLoopOutput,
  type ToolLoopDelivered,
  type ToolLoopOutput,
} from '../tool-loop-output.ts';
import {
  generationKey,
  type StagedPatch,
  type TurnContext,
  type TurnContexts,
  workingWorld,
} from '../turn-context.ts';
import {
  previewTransitions,
  validateWorldPatch,
  type WorkingWorld,
  type WorldPatch,
} from '../world-patch.ts';
import { performAmbient, subjectBindings } from './ambient.ts';
import { buildMessages } from './prompt.ts';
import {
  type AmbientEntry,
  alwaysVisibleTo,
  attemptLinks,
  type ConversationEntry,
  channelsOf,
  loopOf,
  type WorldNodeDeps,
} from './shared.ts';
import { performElectedTool } from './tool.ts';

// A generation's `model_output_kind` is named as its call finishes, with the finished row
// (`SourceCall.outputKind`): the output is judged then, and the node acts on that judgement. Runs
// journaled by older versions may still hold `marks`, which the transaction that ends the attempt writes.
const markOutput = (store: Store, id: string, kind: OutputKind) =>
  store.transaction((tx) => setModelOutputKind(tx, id, kind));

type OutputKind = 'invalid' | 'tool_call' | 'final_patch';
/** What the node reads of a generation's outcome: made now, or finished earlier and reused. */
interface Outcome {
  ok: boolean;
  source_invocation_id: string;
  output?: unknown;
  failure_class?: FailureClass | null;
  error?: { code?: ErrorCode; message: string } | null;
}
type Offered = ToolLoopSetup['offered'][number];

/** What a generation's output is, and what the node does with it. */
type Judgement =
  | { kind: 'invalid'; output: unknown; error: string }
  | { kind: 'tool_call'; output: unknown; call: ToolCall; found: Offered; exhausted: boolean }
  | { kind: 'final_patch'; output: unknown; patch: WorldPatch };
type ToolCall = Extract<ToolLoopOutput, { kind: 'tool_call' }>['tool_call'];

/**
 * Judges an output valid under the delivered (strict-subset) schema, read back into the contract's
 * ToolLoopOutput: a tool call is valid when it names a listed tool and (while calls are left) its
 * arguments match the tool's own schema; past `max_tool_calls` it is a tool call the attempt fails
 * on. A final patch is valid when it matches the WorldPatch schema and applies to the working world.
 */
function judge(
  delivered: ToolLoopDelivered,
  offered: readonly Offered[],
  callsLeft: boolean,
  world: WorkingWorld,
): Judgement {
  const decoded = decodeToolLoopOutput(delivered, offered.map(asTool));
  if (!decoded.ok) return { kind: 'invalid', output: delivered, error: decoded.error };
  const output = decoded.output;
  if (output.kind === 'tool_call') {
    const found = offered.find((o) => o.tool.name === output.tool_call.name);
    if (!found)
      return { kind: 'invalid', output: delivered, error: `unknown tool "${output.tool_call.name}"` };
    const call = output.tool_call;
    if (!callsLeft) return { kind: 'tool_call', output: delivered, call, found, exhausted: true };
    const args = validateCompiled(found.args.schema, output.tool_call.arguments);
    if (!args.ok)
      return {
        kind: 'invalid',
        output: delivered,
        error: `arguments of ${found.tool.name} do not match its schema: ${args.errors[0]?.path} ${args.errors[0]?.message}`,
      };
    return { kind: 'tool_call', output: delivered, call, found, exhausted: false };
  }
  const patch = output.patch as WorldPatch;
  const problems = validateWorldPatch(world, patch);
  if (problems.length > 0)
    return {
      kind: 'invalid',
      output: delivered,
      error: `the WorldPatch cannot be applied: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`,
    };
  return { kind: 'final_patch', output: delivered, patch };
}

const asTool = (o: Offered) => ({ name: o.tool.name, arguments: o.args.schema });

/** A failed generation's kind: what the model said could not be read or did not match its schema. */
const failedKind = (failure_class: string): OutputKind | null =>
  RETRY_BY_CLASS[failure_class as FailureClass] === 'corrected' ? 'invalid' : null;

/**
 * Whether the generation after this node's final one surely opens with a before_subject_workflow
 * source the next subject sees whatever the world, whose running record commits through the run
 * (`ctx.records`), so this step may commit with it rather than on its own. Not when it opens with its
 * model call, recorded on its own: a crash during that call would make this step's (finished) call
 * again.
 */
function nextOpensWithAction(t: TurnContext, at: ToolLoopConfig): boolean {
  const subject = t.plan.subjects[at.subject]!;
  if (at.node + 1 < t.plan.workflows.get(subject.workflow_hash)!.nodes.length) return false;
  const next = t.plan.subjects[at.subject + 1];
  if (!next) return false;
  return (t.plan.workflows.get(next.workflow_hash)!.ambient_sources ?? []).some(
    (b) => b.run === 'before_subject_workflow' && alwaysVisibleTo(b.visible_to, next.entity_id),
  );
}

/** What every generation of one workflow's tool-loop node offers: the same for the whole attempt. */
interface ToolLoopSetup {
  offered: Array<{ tool: AvailableTool; args: { hash: string; schema: JsonSchema } }>;
  resultSchema: { hash: string; schema: JsonSchema };
  /** `{{tools.available}}`, rendered when a prompt first names it. */
  toolsText: string | null;
}

/**
 * Built once per attempt and node, not per generation: a turn runs two or more generations for each
 * subject, and each would otherwise look up every tool's schema and render the tool list again.
 */
const setups = new WeakMap<TurnContext, Map<LlmToolLoopNode, ToolLoopSetup>>();

async function buildToolLoopSetup(
  contexts: TurnContexts,
  t: TurnContext,
  workflowHash: string,
  node: LlmToolLoopNode,
): Promise<ToolLoopSetup> {
  const offered: ToolLoopSetup['offered'] = [];
  for (const tool of node.available_tools ?? [])
    offered.push({ tool, args: await contexts.schema(t, tool.arguments_schema_ref.hash) });
  const resultSchema = await contexts.composed(t, `tool-loop:${workflowHash}:${node.id}`, () =>
    composeToolLoopDelivery(offered.map(asTool)),
  );
  const setup = { offered, resultSchema, toolsText: null };
  let byNode = setups.get(t);
  if (!byNode) {
    byNode = new Map();
    setups.set(t, byNode);
  }
  // By the node's own value: each workflow document of the plan is parsed once, so a node belongs to
  // one workflow, and the lookup hashes no string.
  byNode.set(node, setup);
  return setup;
}

export interface ToolLoopConfig {
  subject: number;
  node: number;
}

const CORRECTIVE =
  'Answer again with one JSON object: either {"kind":"tool_call","tool_call":{"name":<a listed tool>,"arguments":{...matching its schema}},"patch":null} or {"kind":"final_patch","tool_call":null,"patch":{"narration":"...","effects":[...]}} whose effects name only entities and environments of this world (memory only for agents).';

export function toolLoopNode(deps: WorldNodeDeps): NodeType<ToolLoopConfig> {
  const { store, contexts, env } = deps;
  return {
    type: 'world.llm_tool_loop',
    description: "One generation of a subject's llm_tool_loop: a tool call or the final WorldPatch.",
    inputSchema: {
      type: 'object',
      required: ['subject', 'node'],
      properties: { subject: { type: 'integer', minimum: 0 }, node: { type: 'integer', minimum: 0 } },
    },
    async execute(ctx): Promise<NodeResult> {
      const ch = channelsOf(ctx);
      const t = await contexts.get(ch.attempt);
      const subject = t.plan.subjects[ctx.config.subject]!;
      const wf = t.plan.workflows.get(subject.workflow_hash)!;
      const node = wf.nodes[ctx.config.node]!;
      const applies = wf.apply.from === `${node.id}.final`;
      const world = workingWorld(t, ch.patches);
      let loop = loopOf(ch.conversation, ctx.config.subject, node.id);
      let round = loop.filter((c) => c.kind === 'tool_result').length;
      // The tool call this node's previous generation elected (recorded with that generation's step)
      // runs first, in this execution, as an action shared by its attempts: it runs once however often
      // this execution is retried or re-executed after a crash.
      const elected = await performElectedTool(
        ctx,
        ctx.node_id,
        ctx.config.subject,
        node.id,
        round,
        loop,
        (name) =>
          node.available_tools?.some((tool) => tool.name === name && tool.idempotent === true) ?? false,
      );
      if (elected !== null && 'fail' in elected) return elected.fail;
      const performed = elected?.entry ?? null;
      if (performed !== null) {
        loop = [...loop, performed];
        round += 1;
      }
      // The subject's before_subject_workflow sources run before its workflow's first generation, in
      // this execution (shared by its retries, so a retry does not call them again).
      let fresh: AmbientEntry[] = [];
      if (ctx.config.node === 0 && round === 0) {
        if (ctx.attempt === 1)
          ctx.update({ kind: 'subject', subject_entity_id: subject.entity_id, status: 'started' });
        const r = await performAmbient(
          deps,
          ctx,
          ch,
          t,
          subjectBindings(t, subject, world),
          subject.entity_id,
        );
        if (!Array.isArray(r)) return r;
        fresh = r;
      }
      const callsLeft = round < node.max_tool_calls;
      // The contract stays the same across rounds (D13: no changed output contract); a call past
      // max_tool_calls fails the attempt rather than being hidden from the schema.
      const setup =
        setups.get(t)?.get(node) ?? (await buildToolLoopSetup(contexts, t, subject.workflow_hash, node));
      const offered = setup.offered;
      const messages = buildMessages({
        t,
        node,
        workflowHash: subject.workflow_hash,
        subjectId: subject.entity_id,
        world,
        ambient: ch.ambient,
        fresh,
        loop,
        toolsAvailable: () => {
          setup.toolsText ??= JSON.stringify(
            offered.map((o) => ({
              name: o.tool.name,
              description: o.tool.description,
              arguments_schema: o.args.schema,
            })),
            null,
            2,
          );
          return setup.toolsText;
        },
        corrective: ctx.corrective_context,
      });
      ctx.update({
        kind: 'generation',
        subject_entity_id: subject.entity_id,
        workflow_node_id: node.id,
        tool_loop_round: round,
        attempt: ctx.attempt,
      });
      // Judged as the call finishes, so its kind is written with the finished row.
      let judged: Judgement | null = null;
      const outputKind = (r: { ok: true; output: unknown } | { ok: false; failure_class: string }) => {
        if (!r.ok) return failedKind(r.failure_class);
        judged = judge(r.output as ToolLoopDelivered, offered, callsLeft, world);
        return judged.kind;
      };
      // A generation this attempt already finished (its process died before the step committed) is
      // reused, not asked again: its output, or a failure the model is told of and asked to correct.
      const key = generationKey(subject.workflow_hash, node.id, subject.entity_id, ctx.attempt, round);
      const done = (await contexts.generations(t, ctx.signal)).get(key);
      const reused = done && (done.ok || RETRY_BY_CLASS[done.failure_class] === 'corrected') ? done : null;
      // A retryable failure (rate limited, network) is called again after the retry lane's wait,
      // each call its own invocation.
      const source =
        t.sources.get(node.llm_source_ref.hash) ?? (await contexts.source(t, node.llm_source_ref.hash));
      const out: Outcome =
        reused ??
        (await retryingSame(
          () =>
            invokeSource(store, {
              source,
              request: { messages, schema_name: 'tool_loop_output' },
              kind: 'llm_generation',
              links: {
                ...attemptLinks(ch.attempt, ctx.run_id),
                workflow_hash: subject.workflow_hash,
                workflow_node_id: node.id,
                workflow_subject_entity_id: subject.entity_id,
                logical_generation_attempt: ctx.attempt,
                tool_loop_round: round,
              },
              resultSchema: setup.resultSchema,
              signal: ctx.signal,
              env: env(),
              outputKind,
            }),
          (r) => (r.ok ? null : r.error),
          { signal: ctx.signal },
        ));
      const reject = (error: string): NodeResult => ({
        kind: 'retry_generation',
        error,
        corrective: CORRECTIVE,
      });
      if (!out.ok) {
        // Only what the model said can be retried; transport failures (and a refused
        // response_format) fail the attempt loudly — no silent degradation (D14).
        if (out.failure_class && RETRY_BY_CLASS[out.failure_class] === 'corrected') {
          const message = out.error?.message ?? 'invalid output';
          const retry = reject(`${out.failure_class}: ${message}`);
          // A reply cut off at the token limit is told so, not that it was not JSON.
          if (out.failure_class === 'truncated' && retry.kind === 'retry_generation')
            retry.corrective = `${correctiveFor({ failure_class: out.failure_class, message })} ${CORRECTIVE}`;
          return retry;
        }
        return {
          kind: 'fail',
          code: out.error?.code ?? 'SOURCE_FAILED',
          message: `generation for "${subject.entity_id}" failed (source invocation ${out.source_invocation_id}): ${out.error?.message}`,
        };
      }
      const output = out.output as ToolLoopDelivered;
      // The output the call returns is the one judged unless redaction changed it: then it is judged
      // again, and its kind corrected if that changed it.
      const early = judged as Judgement | null;
      const verdict = early?.output === output ? early : judge(output, offered, callsLeft, world);
      // A reused generation's kind was written when it finished.
      if (reused === null && verdict !== early && verdict.kind !== early?.kind)
        await markOutput(store, out.source_invocation_id, verdict.kind);
      if (verdict.kind === 'invalid') return reject(verdict.error);
      if (verdict.kind === 'tool_call') {
        const found = verdict.found;
        const toolCall = verdict.call;
        if (verdict.exhausted)
          return {
            kind: 'fail',
            code: 'MAX_TOOL_CALLS_EXHAUSTED',
            message: `"${subject.entity_id}" asked for tool call ${round + 1} but max_tool_calls is ${node.max_tool_calls}`,
          };
        const call: ConversationEntry = {
          subject: ctx.config.subject,
          node: node.id,
          kind: 'tool_call',
          message: { role: 'assistant', content: JSON.stringify(output) },
          // Performed at the start of the next generation (`performElectedTool`).
          elected: {
            source_hash: found.tool.source_ref.hash,
            request: toolCall.arguments as Json,
            ...(found.tool.result_schema_ref
              ? { result_schema_hash: found.tool.result_schema_ref.hash }
              : {}),
            kind: 'model_elected_tool',
            tool_name: found.tool.name,
            links: {
              ...attemptLinks(ch.attempt, ctx.run_id),
              workflow_hash: subject.workflow_hash,
              workflow_node_id: node.id,
              workflow_subject_entity_id: subject.entity_id,
              parent_source_invocation_id: out.source_invocation_id,
              tool_loop_round: round,
            } as unknown as Json,
          },
        };
        return {
          kind: 'ok',
          route: 'tool',
          // The next generation opens with the elected call's action: this step commits with it.
          commitsWithNext: true,
          writes: {
            ...(fresh.length > 0 ? { ambient: fresh as unknown as Json } : {}),
            conversation: (performed ? [performed, call] : call) as unknown as Json,
          },
        };
      }
      const patch = verdict.patch;
      const writes: Record<string, Json> = {
        ...(fresh.length > 0 ? { ambient: fresh as unknown as Json } : {}),
        ...(performed ? { conversation: performed as unknown as Json } : {}),
      };
      if (applies) {
        const staged: StagedPatch = {
          patch_seq: ch.patches.length + 1,
          subject_entity_id: subject.entity_id,
          workflow_hash: subject.workflow_hash,
          workflow_node_id: node.id,
          source_invocation_id: out.source_invocation_id,
          patch,
          transitions: previewTransitions(world, patch),
        };
        writes.patches = staged as unknown as Json;
        ctx.update({
          kind: 'patch',
          subject_entity_id: subject.entity_id,
          patch_seq: staged.patch_seq,
          narration: patch.narration,
        });
      }
      return {
        kind: 'ok',
        route: 'final',
        commitsWithNext: nextOpensWithAction(t, ctx.config),
        writes,
        output: { final: patch as unknown as Json, source_invocation_id: out.source_invocation_id },
      };
    },
  };
}
