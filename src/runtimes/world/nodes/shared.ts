/**
 * What the world's node types share: the run's channels read as typed values, the links every
 * invocation of an attempt carries, and visibility of ambient context to a subject.
 */
import type { Json, NodeContext } from '../../../engine/index.ts';
import { type InvocationLinks, setModelOutputKinds } from '../../../sources/index.ts';
import type { Queryable, Store } from '../../../store/store.ts';
import type { AmbientTarget } from '../documents.ts';
import type { AttemptInput, StagedPatch, TurnContext, TurnContexts } from '../turn-context.ts';
import type { WorkingWorld } from '../world-patch.ts';

/** One ambient result in the `ambient` channel. */
export interface AmbientEntry {
  ambient_source_id: string;
  workflow_hash: string;
  run: 'once_per_turn' | 'before_subject_workflow';
  /** The subject it ran for (before_subject_workflow only). */
  subject_entity_id: string | null;
  scope: AmbientTarget;
  visible_to: AmbientTarget;
  inject_as: string;
  source_hash: string;
  source_invocation_id: string | null;
  result: Json;
}

/** One message of a subject node's tool loop in the `conversation` channel. */
export interface ConversationEntry {
  subject: number;
  node: string;
  kind: 'tool_call' | 'tool_result';
  message: { role: 'assistant' | 'user'; content: string };
  /** A tool call's contract payload, performed at the start of the node's next generation. */
  elected?: Json;
  /** A tool result whose call a crash interrupted and that was not made again: the model was told so. */
  outcome?: 'unknown';
}

/** An accepted generation's `model_output_kind`, in the `marks` channel until the attempt ends. */
export interface OutputMark {
  source_invocation_id: string;
  kind: 'tool_call' | 'final_patch';
}

/** Writes the marks in the transaction that ends the attempt: one statement per table and kind. */
export async function writeOutputMarks(tx: Queryable, marks: readonly OutputMark[]): Promise<void> {
  const byKind = new Map<OutputMark['kind'], string[]>();
  for (const m of marks) byKind.set(m.kind, [...(byKind.get(m.kind) ?? []), m.source_invocation_id]);
  for (const [kind, ids] of byKind) await setModelOutputKinds(tx, ids, kind);
}

/** What `grown` keeps per list: how far it has read, and the index built from that much. */
type Grown<I> = { read: number; index: I };

/**
 * The index `cache` keeps for the append-only `list`, extended by what was appended since it was last
 * read (rebuilt if the list got shorter): a turn's channels grow with every subject, and each
 * generation reads them, so none of them is walked whole each time.
 */
function grown<T, I>(
  cache: WeakMap<readonly T[], Grown<I>>,
  list: readonly T[],
  make: () => I,
  add: (index: I, item: T, at: number) => void,
): I {
  let g = cache.get(list);
  if (!g || g.read > list.length) {
    g = { read: 0, index: make() };
    cache.set(list, g);
  }
  for (; g.read < list.length; g.read++) add(g.index, list[g.read]!, g.read);
  return g.index;
}

/** Append channels flattened so far, by channel array (the engine appends to it in place). */
const flattened = new WeakMap<readonly unknown[], Grown<unknown[]>>();
const newList = (): unknown[] => [];
const spreadInto = (items: unknown[], e: unknown): void => {
  if (Array.isArray(e)) for (const x of e) items.push(x);
  else items.push(e);
};

/**
 * `channel`'s entries with nested lists spread, kept across executions. The list returned is
 * shared: callers copy it to change it.
 */
function flat<T>(channel: ReadonlyArray<T | T[]>): readonly T[] {
  return grown(flattened, channel, newList, spreadInto) as T[];
}

/** The `conversation` channel's entries by subject. */
const bySubject = new WeakMap<readonly ConversationEntry[], Grown<Map<number, ConversationEntry[]>>>();
const newSubjectMap = () => new Map<number, ConversationEntry[]>();
const addBySubject = (entries: Map<number, ConversationEntry[]>, c: ConversationEntry): void => {
  const list = entries.get(c.subject);
  if (list) list.push(c);
  else entries.set(c.subject, [c]);
};

/**
 * The messages of one subject node's tool loop so far, in order: a lookup, not a scan of the whole
 * turn's conversation (which every generation would otherwise walk). `conversation` is a list
 * `channelsOf` returned; the list returned is fresh (callers may keep it).
 */
export function loopOf(
  conversation: readonly ConversationEntry[],
  subject: number,
  node: string,
): ConversationEntry[] {
  const entries = grown(bySubject, conversation, newSubjectMap, addBySubject);
  return (entries.get(subject) ?? []).filter((c) => c.node === node);
}

/** The `ambient` channel's entries by position: shared ones, and each subject's own. */
type AmbientIndex = { shared: number[]; bySubject: Map<string | null, number[]> };
const ambientIndex = new WeakMap<readonly AmbientEntry[], Grown<AmbientIndex>>();
const newAmbientIndex = (): AmbientIndex => ({ shared: [], bySubject: new Map() });
const addAmbient = (index: AmbientIndex, e: AmbientEntry, at: number): void => {
  if (e.run !== 'before_subject_workflow') index.shared.push(at);
  else {
    const own = index.bySubject.get(e.subject_entity_id);
    if (own) own.push(at);
    else index.bySubject.set(e.subject_entity_id, [at]);
  }
};

/**
 * The entries of `ambient` (a list `channelsOf` returned) that are not another subject's
 * before_subject_workflow results, in order: a lookup, where a filter would walk every subject's
 * results at each generation of the turn.
 */
export function ambientOf(ambient: readonly AmbientEntry[], subjectId: string): AmbientEntry[] {
  const index = grown(ambientIndex, ambient, newAmbientIndex, addAmbient);
  const shared = index.shared;
  const own = index.bySubject.get(subjectId) ?? [];
  const out: AmbientEntry[] = [];
  let i = 0;
  let j = 0;
  while (i < shared.length || j < own.length) {
    const next = j >= own.length || (i < shared.length && shared[i]! < own[j]!) ? shared[i++]! : own[j++]!;
    out.push(ambient[next]!);
  }
  return out;
}

/** What the world's node types run with: the store, the runtime's turn contexts, its environment. */
export interface WorldNodeDeps {
  store: Store;
  contexts: TurnContexts;
  env: () => Readonly<Record<string, string | undefined>>;
}

export const channelsOf = (ctx: NodeContext<unknown>) => ({
  attempt: ctx.state.attempt as unknown as AttemptInput,
  ambient: flat(ctx.state.ambient as unknown as Array<AmbientEntry | AmbientEntry[]>),
  // A generation writes one entry, or two (the result of the tool it performed, then its own call).
  conversation: flat(ctx.state.conversation as unknown as Array<ConversationEntry | ConversationEntry[]>),
  patches: ctx.state.patches as unknown as StagedPatch[],
  marks: (ctx.state.marks ?? []) as unknown as OutputMark[],
});

/** The attempt run's channels, as a node reads them. */
export type Channels = ReturnType<typeof channelsOf>;

export function attemptLinks(a: AttemptInput, run_id: string): InvocationLinks {
  return { run_id, attempt_id: a.attempt_id, world_slug: a.world_slug, attempted_turn: a.attempted_turn };
}

/** Whether a subject sees a source with this visibility in any world (not by where it is). */
export function alwaysVisibleTo(target: AmbientTarget, subjectId: string): boolean {
  if (target === 'all_subjects' || target === 'acting_subject' || target === 'world') return true;
  return 'entity_id' in target && target.entity_id === subjectId;
}

/** Whether a subject sees (or, before its workflow, runs) a source with this visibility. */
export function visibleTo(target: AmbientTarget, subjectId: string, world: WorkingWorld): boolean {
  if (target === 'all_subjects' || target === 'acting_subject' || target === 'world') return true;
  if ('entity_id' in target) return target.entity_id === subjectId;
  return world.entities.get(subjectId)?.environment_label === target.environment_label;
}

/** The context `$from` pointers read. */
export function templateContext(t: TurnContext, subjectId: string | null, world: WorkingWorld) {
  const a = t.attempt;
  const ctx: Record<string, unknown> = {
    world: {
      slug: a.world_slug,
      attempted_turn: a.attempted_turn,
      simulation_time: a.simulation_time,
      scenario_hash: a.scenario_hash,
    },
  };
  if (subjectId !== null) {
    const e = world.entities.get(subjectId);
    if (e)
      ctx.subject = {
        entity_id: subjectId,
        kind: e.kind,
        environment_label: e.environment_label,
        state: e.state,
      };
  }
  return ctx;
}
