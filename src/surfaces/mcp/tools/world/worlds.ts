/** World catalog: create, fork, run turns on and read worlds; `progressLine` says each turn progress event in a line. */
import { createWorld, diffTurns, forkWorld, getWorldWithJson } from '../../../../runtimes/world/index.ts';
import { type McpToolDef, WithJsonText } from '../../tool.ts';
import { hashRef, objectSchema, turn, worldSlug } from './parts.ts';
import { worldRuntimeFor } from './runtime.ts';

export function progressLine(p: Record<string, unknown>): string | null {
  if (p.kind === 'ambient_source' && p.status !== 'started')
    return `ambient ${p.ambient_source_id}${p.subject_entity_id ? ` for ${p.subject_entity_id}` : ''}: ${p.status}`;
  if (p.kind === 'subject') return `subject ${p.subject_entity_id}: started`;
  if (p.kind === 'patch') return `subject ${p.subject_entity_id}: patch ${p.patch_seq} accepted`;
  if (p.kind === 'tool_call' && p.status === 'outcome_unknown')
    return `tool ${p.tool_name}: outcome unknown (a crash interrupted it; not called again)`;
  if (p.kind === 'tool_call' && p.status === 'redone_after_interruption')
    return `tool ${p.tool_name}: called again (a crash interrupted it; the tool is idempotent)`;
  if (p.kind === 'tool_call') return `tool ${p.tool_name}: called`;
  return null;
}

export const worldTools: McpToolDef[] = [
  {
    name: 'create_world',
    description:
      'Creates a world at turn 0 from an assembled scenario. Returns { world_slug, turn: 0, scenario_hash }. WORLD_EXISTS if the slug is taken.',
    inputSchema: objectSchema(
      { world_slug: worldSlug, scenario_ref: hashRef('The scenario (from assemble_scenario).') },
      ['world_slug', 'scenario_ref'],
    ),
    handler: async (input, { store }) => ({ ...(await createWorld(store, input as never)) }),
  },
  {
    name: 'fork_world',
    description:
      'Starts a new world that shares the history of world_slug up to at_turn, without copying it (what-if runs). Returns { world_slug, forked_from, at_turn, turn }.',
    inputSchema: objectSchema(
      {
        world_slug: worldSlug,
        at_turn: turn('A committed turn of world_slug.'),
        new_world_slug: { ...worldSlug, description: "The new world's slug." },
      },
      ['world_slug', 'at_turn', 'new_world_slug'],
    ),
    handler: async (input, { store }) => ({ ...(await forkWorld(store, input as never)) }),
  },
  {
    name: 'run_turn',
    description:
      'Runs the next turn of a world: once_per_turn ambient sources, then each subject in order (its before_subject_workflow sources, its llm_tool_loop, its WorldPatch validated and applied provisionally), then ONE commit. Returns { attempt_id, status: "committed" | "failed", turn, patches: [{ patch_seq, subject_entity_id, narration, effects }], failure? }. A failed attempt commits no world state (its invocations stay); run_turn again retries the same turn. ATTEMPT_IN_PROGRESS if another attempt of this world is running. Sends progress notifications when you pass a progress token.',
    inputSchema: objectSchema({ world_slug: worldSlug }, ['world_slug']),
    handler: async (input, { store, progress }) => {
      const result = await worldRuntimeFor(store).runTurn(
        { world_slug: input.world_slug as string },
        progress
          ? {
              onProgress: (p) => {
                const line = progressLine(p);
                if (line) void progress(line);
              },
            }
          : {},
      );
      return { ...result };
    },
  },
  {
    name: 'get_world',
    description:
      'The world at a committed turn (default: the latest): { world_slug, turn, simulation_time, environments: { <label>: { content } }, entities: { <entity_id>: { kind, environment_label, state, memory? } }, scenario_hash, head_turn }.',
    inputSchema: objectSchema(
      { world_slug: worldSlug, turn: turn('A committed turn (default: the latest).') },
      ['world_slug'],
    ),
    // The JSON is spliced from the snapshot's stored text (as HTTP's answer is), not serialized
    // from the objects again; the objects are made only for a caller that hands the dispatcher no
    // splice (one in process).
    handler: async (input, { store }) => {
      const { value, json, escaped } = await getWorldWithJson(store, input as never);
      return new WithJsonText(json, () => ({ ...value() }), escaped);
    },
  },
  {
    name: 'diff_turns',
    description:
      'What changed between two committed turns: { entities: [{ entity_id, field, before, after }], environments: [{ environment_label, before, after }] }.',
    inputSchema: objectSchema(
      { world_slug: worldSlug, from_turn: turn('The earlier turn.'), to_turn: turn('The later turn.') },
      ['world_slug', 'from_turn', 'to_turn'],
    ),
    handler: async (input, { store }) => ({ ...(await diffTurns(store, input as never)) }),
  },
];
