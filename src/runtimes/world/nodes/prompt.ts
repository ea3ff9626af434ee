/**
 * Builds an `llm_tool_loop` generation's messages: the authored prompt template with its known
 * variables filled in (world projection, acting subject, visible ambient context, available
 * tools), then the loop so far (tool calls and results as JSON-bearing messages), then the
 * corrective notes of rejected attempts.
 */
import type { CorrectiveNote } from '../../../engine/index.ts';
import type { LlmToolLoopNode } from '../documents.ts';
import { injectAt, renderPrompt } from '../templates.ts';
import type { TurnContext } from '../turn-context.ts';
import type { EntityState, WorkingWorld } from '../world-patch.ts';
import { type AmbientEntry, ambientOf, type ConversationEntry, visibleTo } from './shared.ts';

/** The subject's environment and the entities in it (memory only for the subject itself). */
export function projection(world: WorkingWorld, subjectId: string): unknown {
  const label = world.entities.get(subjectId)?.environment_label;
  const entities: Record<string, unknown> = {};
  for (const [id, e] of world.entities) {
    if (e.environment_label !== label) continue;
    entities[id] = { kind: e.kind, state: e.state, ...(id === subjectId ? { memory: e.memory ?? '' } : {}) };
  }
  return {
    environment: { label, content: label ? world.environments.get(label)?.content : undefined },
    entities,
  };
}

function visibleEntries(
  entries: readonly AmbientEntry[],
  workflowHash: string,
  subjectId: string,
  world: WorkingWorld,
): AmbientEntry[] {
  return entries.filter(
    (e) =>
      e.workflow_hash === workflowHash &&
      (e.run !== 'before_subject_workflow' || e.subject_entity_id === subjectId) &&
      visibleTo(e.visible_to, subjectId, world),
  );
}

function injected(visible: readonly AmbientEntry[]): unknown {
  const root: Record<string, unknown> = {};
  for (const e of visible) injectAt(root, e.inject_as, e.result);
  return root.ambient ?? {};
}

/** Ambient results this subject sees, injected at their `inject_as` pointers. */
export function visibleAmbient(
  entries: readonly AmbientEntry[],
  workflowHash: string,
  subjectId: string,
  world: WorkingWorld,
): unknown {
  return injected(visibleEntries(entries, workflowHash, subjectId, world));
}

/**
 * `{{ambient.visible}}` of each subject, by attempt, with the entries it was rendered from: a
 * subject's later generations see the same entries (the same objects), so they reuse the text.
 */
const ambientTexts = new WeakMap<
  TurnContext,
  Map<string, { workflowHash: string; visible: AmbientEntry[]; text: string }>
>();

function visibleAmbientText(
  t: TurnContext,
  channel: readonly AmbientEntry[],
  fresh: readonly AmbientEntry[],
  workflowHash: string,
  subjectId: string,
  world: WorkingWorld,
): string {
  const visible = visibleEntries(ambientOf(channel, subjectId), workflowHash, subjectId, world);
  if (fresh.length > 0) visible.push(...visibleEntries(fresh, workflowHash, subjectId, world));
  let bySubject = ambientTexts.get(t);
  if (!bySubject) {
    bySubject = new Map();
    ambientTexts.set(t, bySubject);
  }
  const known = bySubject.get(subjectId);
  if (
    known?.workflowHash === workflowHash &&
    known.visible.length === visible.length &&
    known.visible.every((e, i) => e === visible[i])
  )
    return known.text;
  const text = JSON.stringify(injected(visible), null, 2);
  bySubject.set(subjectId, { workflowHash, visible, text });
  return text;
}

/**
 * `{{subject.rendered}}` by entity value: a patch replaces an entity's value rather than changing it,
 * so a subject's later generations, until its own patch, reuse the text.
 */
const renderedSubjects = new WeakMap<EntityState, { id: string; text: string }>();

export function buildMessages(input: {
  t: TurnContext;
  node: LlmToolLoopNode;
  workflowHash: string;
  subjectId: string;
  world: WorkingWorld;
  /** The `ambient` channel as `channelsOf` returned it. */
  ambient: readonly AmbientEntry[];
  /** Ambient entries this generation added (not in the channel yet). */
  fresh: readonly AmbientEntry[];
  loop: readonly ConversationEntry[];
  /** `{{tools.available}}`: the node's tools (name, description, arguments_schema) as JSON. */
  toolsAvailable: () => string;
  corrective: readonly CorrectiveNote[];
}): Array<{ role: 'system' | 'user' | 'assistant'; content: string }> {
  const { t, node, subjectId, world } = input;
  const e = world.entities.get(subjectId)!;
  // Each variable is rendered once, and only if the template names it (the projection walks the world).
  const values: Record<string, () => string> = {
    'world.projection': () => JSON.stringify(projection(world, subjectId), null, 2),
    'world.slug': () => t.attempt.world_slug,
    'world.attempted_turn': () => String(t.attempt.attempted_turn),
    'world.simulation_time': () => t.attempt.simulation_time ?? '',
    'subject.rendered': () => {
      const known = renderedSubjects.get(e);
      if (known?.id === subjectId) return known.text;
      const text = JSON.stringify(
        {
          entity_id: subjectId,
          kind: e.kind,
          environment_label: e.environment_label,
          state: e.state,
          memory: e.memory ?? '',
        },
        null,
        2,
      );
      renderedSubjects.set(e, { id: subjectId, text });
      return text;
    },
    'subject.entity_id': () => subjectId,
    'ambient.visible': () =>
      visibleAmbientText(t, input.ambient, input.fresh, input.workflowHash, subjectId, world),
    'tools.available': input.toolsAvailable,
  };
  const rendered = new Map<string, string>();
  const value = (name: string): string => {
    let v = rendered.get(name);
    if (v === undefined) {
      v = Object.hasOwn(values, name) ? values[name]!() : '';
      rendered.set(name, v);
    }
    return v;
  };
  const messages = node.prompt_template.messages.map((m) => ({
    role: m.role,
    content: renderPrompt(m.content, value),
  }));
  for (const c of input.loop) messages.push(c.message);
  for (const n of input.corrective)
    messages.push({
      role: 'user',
      content: `Your previous output (generation attempt ${n.attempt}) was rejected: ${n.error}\n${n.corrective}`,
    });
  return messages;
}
