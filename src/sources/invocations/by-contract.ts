/**
 * How an engine contract's source call ended, read back from its invocation rows: what the sources
 * executor's `recover` returns for a contract its dead process left RUNNING. Only a durably finished
 * invocation counts; a `running` or `interrupted` one (or none) is unknown.
 */
import type { Queryable } from '../../store/store.ts';
import { SourceFailure } from '../failure.ts';
import { normalizeToolResult, type ToolResultLike } from '../mcp-tool/normalize.ts';
import type { FailureClass } from '../source.ts';

export type FinishedCall =
  | { ok: true; source_invocation_id: string; output: unknown }
  | { ok: false; source_invocation_id: string; failure_class: FailureClass; error: SourceFailure };

type Row = {
  source_invocation_id: string;
  interface_name: string;
  status: string;
  failure_class: string | null;
  failure_message: string | null;
  response_json: string | null;
};

const COLUMNS = 'source_invocation_id, interface_name, status, failure_class, failure_message, response_json';

/**
 * The latest invocation of `contract_id` within its attempt (when the call carried one) or its run —
 * the scopes the partial sequence indexes cover — if it finished; else null.
 */
export async function finishedCallOfContract(
  q: Queryable,
  scope: { contract_id: string; run_id: string; attempt_id?: string | null },
): Promise<FinishedCall | null> {
  const row = scope.attempt_id
    ? await q.get<Row>(
        `SELECT ${COLUMNS} FROM source_invocations WHERE attempt_id = ? AND contract_id = ?
         ORDER BY invocation_seq DESC LIMIT 1`,
        [scope.attempt_id, scope.contract_id],
      )
    : await q.get<Row>(
        `SELECT ${COLUMNS} FROM source_invocations WHERE attempt_id IS NULL AND run_id = ? AND contract_id = ?
         ORDER BY invocation_seq DESC LIMIT 1`,
        [scope.run_id, scope.contract_id],
      );
  if (!row) return null;
  const id = row.source_invocation_id;
  if (row.status === 'succeeded') {
    const json = row.response_json == null ? null : (JSON.parse(row.response_json) as unknown);
    // The caller's output is the recorded response JSON, except an MCP tool's (its normalized result).
    const output =
      row.interface_name === 'mcp_tool' && json !== null ? normalizeToolResult(json as ToolResultLike) : json;
    return { ok: true, source_invocation_id: id, output };
  }
  if (row.status === 'failed') {
    const failure_class = (row.failure_class ?? 'internal') as FailureClass;
    const error = new SourceFailure(failure_class, row.failure_message ?? 'source call failed');
    return { ok: false, source_invocation_id: id, failure_class, error };
  }
  return null;
}
