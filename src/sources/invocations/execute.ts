/** Runs a planned call under its deadline, with its progress writer: every way it ends becomes a result. */
import { toNoemaError } from '../../core/errors.ts';
import { callDeadline } from '../deadline.ts';
import { isSourceFailure, SourceFailure } from '../failure.ts';
import type { SourceCall, SourcePlan, SourceSuccess } from '../source.ts';
import type { ProgressWriter } from './progress.ts';

export async function executePlan(
  plan: SourcePlan,
  call: SourceCall,
  id: string,
  progress: ProgressWriter,
): Promise<{ success: SourceSuccess; failure: null } | { success: null; failure: SourceFailure }> {
  const deadline = callDeadline(call.signal, call.timeoutMs ?? plan.timeout_ms);
  try {
    return {
      success: await plan.execute({
        signal: deadline.signal,
        source_invocation_id: id,
        timedOut: deadline.timedOut,
        cancelled: deadline.cancelled,
        progressed: progress.progressed,
      }),
      failure: null,
    };
  } catch (err) {
    if (isSourceFailure(err)) return { success: null, failure: err };
    if (deadline.timedOut())
      return { success: null, failure: new SourceFailure('timeout', 'source call timed out') };
    if (deadline.cancelled())
      return { success: null, failure: new SourceFailure('cancelled', 'source call was cancelled') };
    const e = toNoemaError(err);
    return {
      success: null,
      failure: new SourceFailure('internal', `source implementation failed: ${e.message}`),
    };
  } finally {
    deadline.dispose();
    await progress.stop();
  }
}
