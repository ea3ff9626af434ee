/** Front door of the flowchart runtime (seed 003): the service functions surfaces call. */

export * from './artifacts/read.ts';
export { startArtifactSweeper, sweepNodeArtifacts } from './artifacts/sweep.ts';
export * from './flowcharts.ts';
export * from './legacy.ts';
export { llmctlMemoryAdd, llmctlMemoryRetrieve } from './memory-ops.ts';
export { flowMigrations } from './migrations.ts';
export * from './milestones.ts';
export { applyPlanPatch } from './plan/applier.ts';
export { getPlan, type PlanRecord } from './plan/store.ts';
export * from './run/events.ts';
export type { NodeRun } from './run/node-runs.ts';
export { readFlowRunRow } from './run/run-meta.ts';
export * from './runs.ts';
export * from './types.ts';
export * from './views.ts';
