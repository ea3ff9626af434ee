// Public API of sources: store definitions, invoke them with durable tracing, read the trace.

export type { StoredSchema } from './documents.ts';
export {
  checkResponseSource,
  getJsonSchema,
  getResponseSource,
  putJsonSchema,
  putResponseSource,
} from './documents.ts';
export {
  type DocumentFilter,
  type DocumentPage,
  listJsonSchemas,
  listResponseSources,
} from './documents-list.ts';
export { correctiveFor, isSourceFailure, RETRY_BY_CLASS, SourceFailure } from './failure.ts';
export { setModelOutputKind, setModelOutputKinds } from './invocations/annotate.ts';
export { keepCompleteReply, keepReplyOfContract } from './invocations/keep-reply.ts';
export type { InvocationFilter, SourceInvocationRecord } from './invocations/read.ts';
export { getLlmCall, getSourceInvocation, listSourceInvocations, MAX_PAGE } from './invocations/read.ts';
export type { FinishedCall, FinishedGeneration, SucceededCall } from './invocations/read-back.ts';
export {
  finishedCallOfContract,
  finishedGenerationsOfAttempt,
  succeededCallsOfAttempt,
} from './invocations/read-back.ts';
export type { RecoveryReport } from './invocations/recover.ts';
export { recoverInterruptedInvocations } from './invocations/recover.ts';
export type { RecoverySweep } from './invocations/recovery-sweep.ts';
export { DEFAULT_RECOVERY_INTERVAL_MS, startRecoverySweep } from './invocations/recovery-sweep.ts';
export { type LlmUsageSum, llmUsageSum, MAX_SUM_RUNS } from './invocations/usage-sum.ts';
export type { InvocationOutcome, InvokeOptions, TransactionRunner } from './invoke.ts';
export { invokeSource } from './invoke.ts';
export {
  type Capability,
  type CapabilityLine,
  checkLlmEndpoint,
  type LlmCheckReport,
} from './llm/check.ts';
export { isProviderName, PROVIDERS, type ProviderName } from './llm/providers.ts';
export { type EndpointSchemaPlan, schemaPlansForEndpoints } from './llm/schema-delivery.ts';
export type { DiscoveredTool } from './mcp-tool/list-tools.ts';
export { listMcpTools } from './mcp-tool/list-tools.ts';
export type { McpServerConfig } from './mcp-tool/servers.ts';
export { getMcpServer, putMcpServer } from './mcp-tool/servers.ts';
export { ENV_PASSTHROUGH_ENV, STDIO_ALLOW_ENV } from './mcp-tool/stdio-policy.ts';
export { createRedactor, REDACTED, secretsFromEnv } from './redact.ts';
export { responseSourceFor, sourceInterfaceNames } from './registry.ts';
export type * from './source.ts';
export { INVOCATION_KINDS } from './source.ts';
