/**
 * The 3-way merge rule for one key, as a pure function: given the base snapshot (what `from`
 * branched off), theirs (`from` now) and ours (`into` now), decide skip, apply or conflict.
 */
import { sameState } from './rows.ts';
import type { EdgeContent, NodeContent } from './types.ts';

export type MergeDecision =
  | { action: 'skip'; reason: 'already_equal' }
  | { action: 'apply'; reason: 'into_unchanged' | 'into_only_merged_from' }
  | { action: 'conflict'; reason: 'both_changed' };

export interface MergeInputs<S extends NodeContent | EdgeContent> {
  /** `into`'s state at the branch point (null: absent). */
  base: S | null;
  /** `from`'s current state. */
  theirs: S | null;
  /** `into`'s current state. */
  ours: S | null;
  /** True when ours is itself a copy an earlier merge took from the same `from` branch. */
  oursMergedFromSameBranch: boolean;
}

/**
 * Equal states need nothing (this is what makes re-running a merge a no-op). Otherwise `from`'s
 * state wins when `into` did not change the key since the base (or only received it from an
 * earlier merge of `from`); when both sides changed it differently, it is a conflict.
 */
export function decideMerge<S extends NodeContent | EdgeContent>(m: MergeInputs<S>): MergeDecision {
  if (sameState(m.theirs, m.ours)) return { action: 'skip', reason: 'already_equal' };
  if (m.oursMergedFromSameBranch) return { action: 'apply', reason: 'into_only_merged_from' };
  if (sameState(m.ours, m.base)) return { action: 'apply', reason: 'into_unchanged' };
  return { action: 'conflict', reason: 'both_changed' };
}
