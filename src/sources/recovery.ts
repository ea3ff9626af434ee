/**
 * Startup recovery of source invocations, as a light front door: a process marks calls a dead
 * process left `running` as `interrupted` without loading the source kinds (their SDKs and
 * clients weigh about 30 MB of RSS, which `noema mcp` and `noema migrate` never need). The
 * configuration check of the LLM settings (providers, token limits, prices) is here for the same
 * reason: every process runs it at start.
 */

export { type RecoveryReport, recoverInterruptedInvocations } from './invocations/recover.ts';
export {
  DEFAULT_RECOVERY_INTERVAL_MS,
  type RecoverySweep,
  startRecoverySweep,
} from './invocations/recovery-sweep.ts';
export { checkLlmSettings } from './llm/settings.ts';
