/**
 * ExecutionState (seed 002) and its loop control. Pending and completed calls are views of the
 * run's ExecutionContracts (seed 000): success is read from `contract.status`, never from text.
 */

export type AgentMode = 'fast' | 'deep' | 'adapt';

/** Why a reasoning loop stopped. `response`: the agent answered. */
export type StopReason = 'response' | 'max_iterations' | 'no_action' | 'generation_failed' | 'cancelled';

export interface ChatMessage {
  role: 'user' | 'assistant';
  content: string;
  timestamp: string;
}

/** A tool call as ExecutionState shows it: one ExecutionContract of action type `tool_call`. */
export interface CallView {
  contract_id: string;
  name: string;
  args: Record<string, unknown>;
  status: string;
  success: boolean;
  result: unknown;
  error_message: string | null;
}

export interface Notification {
  kind: string;
  message: string;
  at: string;
}

export interface ExecutionState {
  query: string;
  user_id: string;
  iteration: number;
  max_iterations: number;
  /** The mode asked for (definition or message): fast, deep or adapt. */
  mode: AgentMode;
  /** The mode the next prompt uses; adapt starts fast and may escalate (see mode.ts). */
  effective_mode: 'fast' | 'deep';
  stop_reason: StopReason | null;
  messages: ChatMessage[];
  response: string | null;
  pending_calls: CallView[];
  completed_calls: CallView[];
  debug: boolean;
  notifications: Notification[];
}

/** Loop control beyond the seed's pending-calls check: every reason to stop is named. */
export type LoopDecision = { continue: true } | { continue: false; stop_reason: StopReason };

export function shouldContinue(s: ExecutionState): boolean {
  return s.iteration < s.max_iterations && !s.response && !s.stop_reason && s.pending_calls.length > 0;
}

/** Whether another reasoning iteration may start (before the model is called). */
export function nextIteration(
  s: Pick<ExecutionState, 'iteration' | 'max_iterations' | 'response' | 'stop_reason'>,
): LoopDecision {
  if (s.stop_reason) return { continue: false, stop_reason: s.stop_reason };
  if (s.response) return { continue: false, stop_reason: 'response' };
  if (s.iteration >= s.max_iterations) return { continue: false, stop_reason: 'max_iterations' };
  return { continue: true };
}

interface ContractLike {
  contract_id: string;
  action_type: string;
  status: string;
  payload: unknown;
  result: unknown;
  error_message: string | null;
}

export function callView(c: ContractLike): CallView {
  const p = (c.payload ?? {}) as { name?: string; args?: Record<string, unknown> };
  return {
    contract_id: c.contract_id,
    name: p.name ?? 'unknown',
    args: p.args ?? {},
    status: c.status,
    success: c.status === 'COMPLETED',
    result: c.result,
    error_message: c.error_message,
  };
}

const FINAL = new Set(['COMPLETED', 'FAILED', 'CANCELLED']);

/** pending_calls / completed_calls from the run's tool_call contracts. */
export function callViews(contracts: readonly ContractLike[]): {
  pending: CallView[];
  completed: CallView[];
} {
  const tools = contracts.filter((c) => c.action_type === 'tool_call');
  return {
    pending: tools.filter((c) => !FINAL.has(c.status)).map(callView),
    completed: tools.filter((c) => FINAL.has(c.status)).map(callView),
  };
}
