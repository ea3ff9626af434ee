/**
 * How a call ended, read back from its invocation rows rather than made again: what the sources
 * executor's `recover` returns for a contract its dead process left RUNNING, and the calls of one
 * kind an attempt already made (a process continuing the attempt reuses them). Only a durably
 * finished invocation counts; a `running` or `interrupted` one (or none) is unknown.
 */
import type { Queryable } from '../../store/store.ts';
import { SourceFailure } from '../failure.ts';
import { normalizeToolResult, type ToolResultLike } from '../mcp-tool/normalize.ts';
import type { FailureClass, InvocationKind } from '../source.ts';

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

/** The output a succeeded call returned: its recorded response JSON, an MCP tool's normalized. */
function outputOf(row: Pick<Row, 'interface_name' | 'response_json'>): unknown {
  const json = row.response_json == null ? null : (JSON.parse(row.response_json) as unknown);
  return row.interface_name === 'mcp_tool' && json !== null
    ? normalizeToolResult(json as ToolResultLike)
    : json;
}

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
  return row ? finishedOf(row) : null;
}

/** A row's outcome if it finished, else null. */
function finishedOf(row: Row): FinishedCall | null {
  const id = row.source_invocation_id;
  if (row.status === 'succeeded') return { ok: true, source_invocation_id: id, output: outputOf(row) };
  if (row.status === 'failed') {
    const failure_class = (row.failure_class ?? 'internal') as FailureClass;
    const error = new SourceFailure(failure_class, row.failure_message ?? 'source call failed');
    return { ok: false, source_invocation_id: id, failure_class, error };
  }
  return null;
}

/** A succeeded call of an attempt, with the links that say which binding made it. */
export interface SucceededCall {
  source_invocation_id: string;
  workflow_hash: string | null;
  ambient_source_id: string | null;
  workflow_subject_entity_id: string | null;
  output: unknown;
}

/** Every succeeded invocation of `kind` within `attempt_id`, oldest first (one indexed read). */
export async function succeededCallsOfAttempt(
  q: Queryable,
  attempt_id: string,
  kind: InvocationKind,
): Promise<SucceededCall[]> {
  const rows = await q.all<
    Pick<Row, 'source_invocation_id' | 'interface_name' | 'response_json'> & Omit<SucceededCall, 'output'>
  >(
    `SELECT source_invocation_id, interface_name, response_json, workflow_hash, ambient_source_id,
       workflow_subject_entity_id
     FROM source_invocations WHERE attempt_id = ? AND invocation_kind = ? AND status = 'succeeded'
     ORDER BY invocation_seq`,
    [attempt_id, kind],
  );
  return rows.map((r) => ({
    source_invocation_id: r.source_invocation_id,
    workflow_hash: r.workflow_hash,
    ambient_source_id: r.ambient_source_id,
    workflow_subject_entity_id: r.workflow_subject_entity_id,
    output: outputOf(r),
  }));
}

/** A finished generation of an attempt: which node, subject, generation attempt and round made it. */
export interface FinishedGeneration {
  workflow_hash: string | null;
  workflow_node_id: string | null;
  workflow_subject_entity_id: string | null;
  logical_generation_attempt: number | null;
  tool_loop_round: number | null;
  call: FinishedCall;
}

/**
 * Every finished (`succeeded` or `failed`) `llm_generation` invocation within `attempt_id`, oldest
 * first (one indexed read): what a process continuing the attempt reuses instead of asking again.
 */
export async function finishedGenerationsOfAttempt(
  q: Queryable,
  attempt_id: string,
): Promise<FinishedGeneration[]> {
  const rows = await q.all<Row & Omit<FinishedGeneration, 'call'>>(
    `SELECT ${COLUMNS}, workflow_hash, workflow_node_id, workflow_subject_entity_id,
       logical_generation_attempt, tool_loop_round
     FROM source_invocations WHERE attempt_id = ? AND invocation_kind = 'llm_generation'
       AND status IN ('succeeded', 'failed')
     ORDER BY invocation_seq`,
    [attempt_id],
  );
  return rows.map((r) => ({
    workflow_hash: r.workflow_hash,
    workflow_node_id: r.workflow_node_id,
    workflow_subject_entity_id: r.workflow_subject_entity_id,
    logical_generation_attempt:
      r.logical_generation_attempt == null ? null : Number(r.logical_generation_attempt),
    tool_loop_round: r.tool_loop_round == null ? null : Number(r.tool_loop_round),
    call: finishedOf(r)!,
  }));
}
