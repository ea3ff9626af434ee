/** Public API of the world runtime (seed 004): components, assembly, worlds, turns, reads. */
export { assembleScenario, loadScenario, scenarioProblems } from './assemble.ts';
export { type AppliedBundle, applyBundle } from './bundle.ts';
export type { ComponentKind, ComponentListItem, ComponentRecord } from './components.ts';
export {
  COMPONENT_KINDS,
  getComponent,
  getJsonSchema,
  getResponseSource,
  listComponents,
  listUsesOf,
  putCognitionProfile,
  putCognitionWorkflow,
  putEntity,
  putEnvironment,
  putJsonSchema,
  putResponseSource,
  putWorldPatchSchema,
} from './components.ts';
export { worldMigrations } from './migrations.ts';
export { getAttempt, listAllAttempts, listAttempts, listAuditEvents, listWorlds } from './reads.ts';
export type { RunTurnResult, TurnProgress, WorldRuntime, WorldRuntimeOptions } from './runtime.ts';
export { createWorldRuntime } from './runtime.ts';
export { bindWorldRuntime, sharedWorldRuntime } from './shared-runtime.ts';
export type { WorldEffect, WorldPatch } from './world-patch.ts';
export {
  WORLD_PATCH_SCHEMA,
  WORLD_PATCH_SCHEMA_HASH,
  WORLD_PATCH_SCHEMA_LABEL,
} from './world-patch-schema.ts';
export { createWorld, diffTurns, forkWorld, getWorld, getWorldJson, getWorldWithJson } from './worlds.ts';
