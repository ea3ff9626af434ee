/**
 * The one field a caller may set after the fact: `model_output_kind` (seed 004: `tool_call` |
 * `final_patch` | `invalid`), known only once the runtime has interpreted the model's output (a
 * caller that can interpret it as the call ends names it with the finished row: `SourceCall.outputKind`).
 */
import { invalidInput } from '../../core/errors.ts';
import type { Queryable } from '../../store/store.ts';

const KIND_NAME = /^[a-z][a-z0-9_]{0,63}$/;

/** Whether `kind` is a name `model_output_kind` may hold (lower_snake, at most 64 characters). */
export function isOutputKindName(kind: string): boolean {
  return KIND_NAME.test(kind);
}

/**
 * `reason`, when given, says why the runtime rejected the output: kept in the row's `metadata` as
 * `model_output_reason` (a succeeded call whose output the runtime refused has no failure message).
 */
export async function setModelOutputKind(
  q: Queryable,
  sourceInvocationId: string,
  kind: string,
  reason?: string,
): Promise<void> {
  if (!isOutputKindName(kind)) throw invalidInput('model_output_kind must be a lower_snake name', { kind });
  // The LLM trace (the `llm_calls` view) reads it from the same row.
  if (reason === undefined) {
    await q.run('UPDATE source_invocations SET model_output_kind = ? WHERE source_invocation_id = ?', [
      kind,
      sourceInvocationId,
    ]);
    return;
  }
  const row = await q.get<{ metadata: string }>(
    'SELECT metadata FROM source_invocations WHERE source_invocation_id = ?',
    [sourceInvocationId],
  );
  if (!row) return;
  const metadata = { ...(JSON.parse(row.metadata) as Record<string, unknown>), model_output_reason: reason };
  await q.run(
    'UPDATE source_invocations SET model_output_kind = ?, metadata = ? WHERE source_invocation_id = ?',
    [kind, JSON.stringify(metadata), sourceInvocationId],
  );
}

/** Ids per statement of `setModelOutputKinds` (a bound well inside every backend's parameter limit). */
const IDS_PER_STATEMENT = 200;

/**
 * `setModelOutputKind` for many invocations of one kind, one statement for up to 200 of
 * them: a turn's commit marks every accepted generation of the turn at once.
 */
export async function setModelOutputKinds(
  q: Queryable,
  sourceInvocationIds: readonly string[],
  kind: string,
): Promise<void> {
  if (!isOutputKindName(kind)) throw invalidInput('model_output_kind must be a lower_snake name', { kind });
  for (let i = 0; i < sourceInvocationIds.length; i += IDS_PER_STATEMENT) {
    const ids = sourceInvocationIds.slice(i, i + IDS_PER_STATEMENT);
    const list = ids.map(() => '?').join(', ');
    await q.run(
      `UPDATE source_invocations SET model_output_kind = ? WHERE source_invocation_id IN (${list})`,
      [kind, ...ids],
    );
  }
}
