/** Public surface of the engine layer: the contract (`engine.ts`), `createEngine`, and pure helpers. */

export { actRedoingInterrupted, isInterrupted, MAX_INTERRUPTED_REDOS } from './actions/redo.ts';
export {
  actRetrying,
  type RetryableFailure,
  retryingSame,
  SAME_RETRY_POLICY,
  type SameRetryPolicy,
  sameRetryWait,
} from './actions/retry.ts';
export { sourcesExecutor } from './actions/sources-executor.ts';
export {
  CONTRACT_STATUSES,
  canTransition,
  createContract,
  isFinal,
  TRANSITIONS,
  transition,
} from './contracts/transitions.ts';
export { completedExecutions, observationOf, pendingExecutions } from './contracts/views.ts';
export { createEngine } from './create-engine.ts';
export type * from './engine.ts';
export { TERMINAL } from './engine.ts';
export { EVENTS_CHANNEL } from './events/bus.ts';
export { NodeRegistry } from './graph/registry.ts';
export { graphProblems } from './graph/validate.ts';
export { engineMigrations } from './migrations.ts';
export {
  type RunClaimer,
  type RunReclaimer,
  type RunReclaimerOptions,
  startRunReclaimer,
} from './reclaimer.ts';
export { type RunAttempt, runAttempts } from './run/attempts.ts';
export { listenForQueued, RUNS_QUEUED_CHANNEL } from './run/queued-signal.ts';
export { getGraph, getRunStatus, listGraphs, listRuns, type RunFilter, type RunSummary } from './run/read.ts';
export {
  listWorkers,
  type RegisterWorkerOptions,
  registerWorker,
  runnableByGraph,
  type WorkerRegistration,
  type WorkerRow,
} from './workers.ts';
