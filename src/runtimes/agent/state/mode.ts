/**
 * The one mode controller (seed 002): `fast` and `deep` are fixed; `adapt` starts fast and escalates
 * to deep on the model's `switch_mode: "deep"`, a FAILED tool contract, or after a configured number
 * of iterations; in adapt the model may also step back to fast.
 */
import type { AgentMode } from './execution-state.ts';

export const DEFAULT_ESCALATE_AFTER = 3;

export function initialMode(mode: AgentMode): 'fast' | 'deep' {
  return mode === 'deep' ? 'deep' : 'fast';
}

export interface ModeSignal {
  mode: AgentMode;
  current: 'fast' | 'deep';
  /** The model's `switch_mode`, if any. */
  switch_mode?: string | null;
  /** A tool contract of the last round ended FAILED. */
  tool_failed?: boolean;
  /** Reasoning iterations done so far. */
  iteration: number;
  escalate_after?: number;
}

export interface ModeDecision {
  effective: 'fast' | 'deep';
  /** Why it changed, or why a request was ignored; null when nothing happened. */
  note: string | null;
}

export function decideMode(s: ModeSignal): ModeDecision {
  if (s.mode !== 'adapt') {
    const asked = s.switch_mode && s.switch_mode !== s.mode;
    return {
      effective: s.mode,
      note: asked ? `switch_mode ${s.switch_mode} ignored: mode is fixed to ${s.mode}` : null,
    };
  }
  if (s.switch_mode === 'deep' || s.switch_mode === 'fast') {
    return s.switch_mode === s.current
      ? { effective: s.current, note: null }
      : { effective: s.switch_mode, note: `switch_mode: ${s.switch_mode}` };
  }
  if (s.current === 'fast' && s.tool_failed)
    return { effective: 'deep', note: 'escalated: a tool call failed' };
  if (s.current === 'fast' && s.iteration >= (s.escalate_after ?? DEFAULT_ESCALATE_AFTER))
    return { effective: 'deep', note: `escalated: ${s.iteration} iterations` };
  return { effective: s.current, note: null };
}
