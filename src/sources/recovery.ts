/**
 * Startup recovery of source invocations, as a light front door: a process marks calls a dead
 * process left `running` as `interrupted` without loading the source kinds (their SDKs and
 * clients weigh about 30 MB of RSS, which `noema mcp` and `noema migrate` never need).
 */
export { type RecoveryReport, recoverInterruptedInvocations } from './invocations/recover.ts';
