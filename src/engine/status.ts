/** The statuses of contracts and runs, and a run's error: shared by the engine contract and its events. */
import type { ErrorCode } from '../core/errors.ts';
import type { Json } from './graph/spec.ts';

/** An ExecutionContract's status (seed 000). */
export type ContractStatus = 'PENDING' | 'RUNNING' | 'COMPLETED' | 'FAILED' | 'WAITING' | 'CANCELLED';

export type RunStatus = 'queued' | 'running' | 'waiting' | 'completed' | 'failed' | 'cancelled';

export interface RunError {
  code: ErrorCode;
  message: string;
  node_id?: string;
  details?: Json;
}
