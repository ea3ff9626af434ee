/**
 * EmotionNode (seed 000): reads the user's emotion with one schema-validated LLM call
 * `{ emotion, intensity, modulation }`, or does nothing when the definition switches it off.
 * A failed call is not fatal: the interaction goes on without emotion, with a notification.
 */
import type { Json, NodeResult, NodeType } from '../../../engine/index.ts';
import { getAgent } from '../definition.ts';
import { EMOTION_SCHEMA, type EmotionReading } from '../reply-schema.ts';
import { type AgentNodeDeps, callModel, correctiveMessage, emit, note, type SessionRef } from './deps.ts';

export function emotionNode(deps: AgentNodeDeps): NodeType<null> {
  return {
    type: 'emotion',
    description: "Detects the user's emotion (LLM source call) for the reasoning prompt's modulation.",
    async execute(ctx): Promise<NodeResult> {
      const session = ctx.state.session as unknown as SessionRef;
      const def = await getAgent(deps.store, session.agent_hash);
      // Switched off, the step emits nothing and precedes no call: it commits with the run's next one.
      if (!def.emotion.enabled) return { kind: 'ok', writes: { emotion: null }, commitsWithNext: true };
      const query = (ctx.state.execution as { query: string }).query;
      const call = await callModel(ctx, {
        source_hash: (def.emotion.llm_source_ref ?? def.llm_source_ref).hash,
        store: deps.store,
        judges: deps.judges,
        schema_hash: deps.schemaHashes.emotion,
        contract: EMOTION_SCHEMA,
        output_kind: 'emotion',
        key: 'emotion',
        messages: [
          {
            role: 'system',
            content:
              'Detect the emotion of the user message. Reply with JSON {"emotion": string, "intensity": number 0..1, "modulation": how the assistant should adapt its tone}.',
          },
          { role: 'user', content: query },
          ...correctiveMessage(ctx),
        ],
      });
      if (!call.ok && call.content_failure)
        return {
          kind: 'retry_generation',
          error: call.error,
          corrective: 'Reply with the emotion JSON only.',
        };
      if (!call.ok) {
        return {
          kind: 'ok',
          writes: {
            emotion: null,
            notifications: note('emotion_unavailable', call.error) as unknown as Json,
          },
        };
      }
      const emotion = call.value as unknown as EmotionReading;
      emit(ctx, 'emotion', { ...emotion });
      return {
        kind: 'ok',
        writes: { emotion: emotion as unknown as Json },
        output: emotion as unknown as Json,
      };
    },
  };
}
