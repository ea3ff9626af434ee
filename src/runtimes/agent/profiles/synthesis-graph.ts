/**
 * The ImpressionSynthesizer (seed 002) as a durable engine graph that runs in the background after
 * each finished interaction: `profile_insight` extracts insights (an LLM call with a JSON schema)
 * and folds them into the profile; every `threshold` interactions `profile_synthesis` consolidates
 * the profile and bumps `synthesis_version`; `profile_save` writes it. Each call is traced.
 */
import { deepFreeze } from '../../../core/deep-freeze.ts';
import type { GraphSpec, Json, NodeType } from '../../../engine/index.ts';
import { getAgent } from '../definition.ts';
import { type AgentNodeDeps, callModel, correctiveMessage } from '../nodes/deps.ts';
import { INSIGHTS_SCHEMA, SYNTHESIS_SCHEMA } from '../reply-schema.ts';
import {
  applySynthesis,
  compressForInjection,
  type InteractionInsights,
  type ProfileSynthesis,
  type UserProfile,
  updateFromInteraction,
} from '../state/user-profile.ts';
import { loadProfile } from './profile-store.ts';

/** What one finished interaction hands the synthesizer (the seed's `interaction_data`). */
export interface SynthesisJob {
  user_id: string;
  session_id: string;
  agent_hash: string;
  interaction: {
    query: string;
    response: string | null;
    success: boolean;
    mode_used: string;
    iterations: number;
  };
}

/** Frozen: the engine hashes it once, not on every interaction that queues a run of it. */
export const SYNTHESIS_GRAPH: GraphSpec = deepFreeze({
  entry: 'insight',
  channels: {
    job: { reducer: 'value' },
    profile: { reducer: 'value' },
    revision: { reducer: 'value' },
    // What the model said, kept so a save that lost a race can fold it into the newer profile.
    insights: { reducer: 'value' },
    synthesis: { reducer: 'value' },
  },
  nodes: [
    { id: 'insight', type: 'profile_insight', max_generation_attempts: 2 },
    { id: 'synthesize', type: 'profile_synthesis', max_generation_attempts: 2 },
    { id: 'save', type: 'profile_save' },
    { id: 'end', type: 'terminal' },
  ],
  connectors: [
    { from: 'insight', to: 'synthesize', route: 'synthesize' },
    { from: 'insight', to: 'save', route: 'save' },
    { from: 'insight', to: 'end', route: 'skip' },
    { from: 'synthesize', to: 'save' },
    { from: 'save', to: 'end' },
  ],
});

function insightPrompt(i: SynthesisJob['interaction']): string {
  return `Extract user insights from this interaction:

User Query: ${i.query}
Agent Response: ${i.response ?? ''}
Success: ${i.success}

Extract insights about:
- User goals and preferences
- Technical expertise level
- Communication preferences
- Project context
- Success/failure patterns

Return JSON:
{
    "preferences": {"key": "value"},
    "goals": ["goal1", "goal2"],
    "expertise": ["area1", "area2"],
    "communication_style": "concise|detailed|technical",
    "project_context": {"project_name": "description"},
    "success_pattern": "what worked",
    "failure_pattern": "what didn't work"
}`;
}

function synthesisPrompt(p: UserProfile, i: SynthesisJob['interaction']): string {
  return `Synthesize evolved user profile:

CURRENT PROFILE:
${compressForInjection(p)}

RECENT INTERACTION:
Query: ${i.query}
Success: ${i.success}

Create refined profile that:
- Consolidates understanding over time
- Prioritizes recent patterns
- Eliminates contradictions
- Builds coherent user model

Return JSON with updated fields:
{
    "preferences": {},
    "goals": [],
    "expertise_areas": [],
    "communication_style": "",
    "projects": {},
    "interests": [],
    "constraints": [],
    "success_patterns": [],
    "failure_patterns": []
}`;
}

async function llmOf(deps: AgentNodeDeps, agent_hash: string): Promise<{ hash: string; threshold: number }> {
  const def = await getAgent(deps.store, agent_hash);
  return {
    hash: (def.synthesis.llm_source_ref ?? def.llm_source_ref).hash,
    threshold: def.synthesis.threshold,
  };
}

/** Saves that lose a race to another update of the same user before the run gives up. */
const MAX_SAVE_ATTEMPTS = 5;

/** This interaction's insights (and synthesis, if it ran) applied again on top of a newer profile. */
function refold(latest: UserProfile, insights: Json | undefined, synthesis: Json | undefined): UserProfile {
  const folded = updateFromInteraction(latest, (insights ?? {}) as InteractionInsights);
  return synthesis === undefined || synthesis === null
    ? folded
    : applySynthesis(folded, synthesis as ProfileSynthesis);
}

export function synthesisNodes(deps: AgentNodeDeps): NodeType<null>[] {
  const insight: NodeType<null> = {
    type: 'profile_insight',
    description: 'Extracts insights from one interaction and folds them into the user profile.',
    async execute(ctx) {
      const job = ctx.state.job as unknown as SynthesisJob;
      const llm = await llmOf(deps, job.agent_hash);
      const { profile, revision } = await loadProfile(deps.store, job.user_id);
      const call = await callModel(ctx, {
        source_hash: llm.hash,
        store: deps.store,
        judges: deps.judges,
        schema_hash: deps.schemaHashes.insights,
        contract: INSIGHTS_SCHEMA,
        output_kind: 'insights',
        key: 'insights',
        messages: [{ role: 'user', content: insightPrompt(job.interaction) }, ...correctiveMessage(ctx)],
      });
      if (!call.ok && call.content_failure)
        return { kind: 'retry_generation', error: call.error, corrective: 'Return the insights JSON only.' };
      // The seed: no insights, no update (the interaction is not counted).
      if (!call.ok) return { kind: 'ok', route: 'skip', output: { skipped: call.error } };
      const next = updateFromInteraction(profile, call.value as InteractionInsights);
      const route = next.interaction_count % llm.threshold === 0 ? 'synthesize' : 'save';
      return {
        kind: 'ok',
        route,
        writes: { profile: next as unknown as Json, revision, insights: call.value as Json },
      };
    },
  };
  const synthesize: NodeType<null> = {
    type: 'profile_synthesis',
    description: 'Consolidates the profile every threshold interactions; bumps synthesis_version.',
    async execute(ctx) {
      const job = ctx.state.job as unknown as SynthesisJob;
      const profile = ctx.state.profile as unknown as UserProfile;
      const llm = await llmOf(deps, job.agent_hash);
      const call = await callModel(ctx, {
        source_hash: llm.hash,
        store: deps.store,
        judges: deps.judges,
        schema_hash: deps.schemaHashes.synthesis,
        contract: SYNTHESIS_SCHEMA,
        output_kind: 'synthesis',
        key: 'synthesis',
        messages: [
          { role: 'user', content: synthesisPrompt(profile, job.interaction) },
          ...correctiveMessage(ctx),
        ],
      });
      if (!call.ok && call.content_failure)
        return { kind: 'retry_generation', error: call.error, corrective: 'Return the profile JSON only.' };
      // The seed keeps the profile unchanged when synthesis fails.
      if (!call.ok) return { kind: 'ok', output: { skipped: call.error } };
      return {
        kind: 'ok',
        writes: {
          profile: applySynthesis(profile, call.value as ProfileSynthesis) as unknown as Json,
          synthesis: call.value as Json,
        },
      };
    },
  };
  const save: NodeType<null> = {
    type: 'profile_save',
    description: 'Writes the updated profile (optimistic revision check).',
    async execute(ctx) {
      let profile = ctx.state.profile as unknown as UserProfile;
      let revision = (ctx.state.revision as number | undefined) ?? 0;
      for (let attempt = 0; ; attempt++) {
        const c = await ctx.act(
          'profile_save',
          { profile: profile as unknown as Json, expected_revision: revision },
          { key: attempt === 0 ? 'save' : `save:${attempt}` },
        );
        if (c.status === 'COMPLETED') return { kind: 'ok', output: c.result };
        // Another update of this user committed first: fold this interaction into the newer profile.
        if (c.error?.code !== 'PROFILE_CONFLICT' || attempt + 1 >= MAX_SAVE_ATTEMPTS)
          return {
            kind: 'fail',
            code: 'PROFILE_NOT_SAVED',
            message: c.error_message ?? 'profile_save failed',
          };
        const latest = await loadProfile(deps.store, profile.user_id);
        profile = refold(latest.profile, ctx.state.insights, ctx.state.synthesis);
        revision = latest.revision;
      }
    },
  };
  return [insight, synthesize, save];
}
