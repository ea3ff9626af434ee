/** Public surface of the agent runtime (seeds 000 + 002): surfaces import only this file. */
export type { AgentDefinition, AgentTool } from './definition.ts';
export { AGENT_DEFINITION_SCHEMA } from './definition.ts';
export { AGENT_CHANNELS, AGENT_NODE_TYPES, DEFAULT_COGNITIVE_GRAPH } from './graph.ts';
export { agentMigrations } from './migrations.ts';
export type { PromptTool } from './prompt.ts';
export { buildConversationContext, buildReasoningPrompt } from './prompt.ts';
export type { EcsForm, ReasoningReply } from './reply-schema.ts';
export { REASONING_REPLY_SCHEMA } from './reply-schema.ts';
export type { AgentRuntime, AgentRuntimeOptions } from './runtime.ts';
export { createAgentRuntime } from './runtime.ts';
export type { TurnResult } from './sessions/drive.ts';
export type { SessionEvent, SessionEventName } from './sessions/events.ts';
export { SESSION_EVENT_NAMES } from './sessions/events.ts';
export type { AgentState } from './state/agent-state.ts';
export type { ExecutionState } from './state/execution-state.ts';
export type { ReasoningContext } from './state/reasoning-context.ts';
export type { UserProfile } from './state/user-profile.ts';
