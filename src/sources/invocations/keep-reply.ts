/**
 * Keeping a reply its process received whole: an LLM call left `running` (or marked `interrupted`)
 * by a dead process whose persisted chunks hold the finished stream (`completeReplyOf`) is finished
 * now with that reply — `succeeded`, or `failed` as the call would have (`non_json`,
 * `schema_invalid`) — instead of being lost and made again. The first terminal write wins: a row
 * finished meanwhile is left alone.
 */
import { validateCompiled } from '../../core/compiled-validators.ts';
import type { JsonSchema } from '../../core/schema-registry.ts';
import type { Queryable, Store } from '../../store/store.ts';
import { SourceFailure } from '../failure.ts';
import { decodeChunks } from '../llm/chunk-codec.ts';
import { completeReplyOf } from '../llm/complete-reply.ts';
import { normalizeAssistantText } from '../llm/request.ts';
import type { FailureClass } from '../source.ts';
import type { FinishedCall } from './read-back.ts';

type Row = {
  source_invocation_id: string;
  interface_name: string;
  status: string;
  output_schema_hash: string | null;
  started_at: number;
};

async function persistedChunks(q: Queryable, id: string): Promise<Array<[number, string]>> {
  const rows = await q.all<{ chunks_json: string }>(
    'SELECT chunks_json FROM llm_call_chunks WHERE llm_call_id = ? ORDER BY first_seq',
    [id],
  );
  return rows.flatMap((r) => decodeChunks(r.chunks_json, id));
}

/** The outcome of a reply received whole, as the call would have judged it. */
async function judge(
  q: Queryable,
  text: string,
  schemaHash: string | null,
): Promise<{ ok: true; json: unknown } | { ok: false; failure_class: FailureClass; message: string }> {
  let json: unknown;
  try {
    json = JSON.parse(normalizeAssistantText(text));
  } catch (err) {
    return {
      ok: false,
      failure_class: 'non_json',
      message: `the model's reply is not JSON (${(err as Error).message})`,
    };
  }
  if (schemaHash) {
    // Read here rather than through documents.ts, which loads every source kind (recovery stays light).
    const stored = await q.get<{ content: string }>('SELECT content FROM json_schemas WHERE hash = ?', [
      schemaHash,
    ]);
    if (!stored)
      return { ok: false, failure_class: 'internal', message: `no JSON schema with hash ${schemaHash}` };
    const v = validateCompiled(JSON.parse(stored.content) as JsonSchema, json);
    if (!v.ok)
      return {
        ok: false,
        failure_class: 'schema_invalid',
        message: `source result does not match its result schema: ${v.errors[0]?.message}`,
      };
  }
  return { ok: true, json };
}

/** The row's validation_status: whether the reply, once JSON, matched the result schema. */
function validationOf(
  schemaHash: string | null,
  outcome: { ok: true } | { ok: false; failure_class: FailureClass },
): 'valid' | 'invalid' | null {
  if (!schemaHash) return null;
  if (outcome.ok) return 'valid';
  return outcome.failure_class === 'schema_invalid' ? 'invalid' : null;
}

/**
 * Finishes invocation `id` with the reply its persisted chunks hold whole, if they do (and the row is
 * an LLM call a dead process left `running` or `interrupted`); else null, changing nothing.
 */
export async function keepCompleteReply(
  store: Store,
  id: string,
  now = Date.now(),
): Promise<FinishedCall | null> {
  const row = await store.get<Row>(
    `SELECT source_invocation_id, interface_name, status, output_schema_hash, started_at
       FROM source_invocations WHERE source_invocation_id = ?`,
    [id],
  );
  if (row?.interface_name !== 'llm_chat_completions') return null;
  if (row.status !== 'running' && row.status !== 'interrupted') return null;
  const chunks = await persistedChunks(store, id);
  const reply = completeReplyOf(chunks);
  if (!reply) return null;
  const outcome = await judge(store, reply.text, row.output_schema_hash);
  const started = Number(row.started_at);
  const r = await store.run(
    `UPDATE source_invocations SET status = ?, failure_class = ?, failure_message = ?, ended_at = ?,
       duration_ms = ?, response_json = ?, response_text = ?, validation_status = ?,
       llm_finish_reason = ?, llm_chunk_count = ?
     WHERE source_invocation_id = ? AND status IN ('running', 'interrupted')`,
    [
      outcome.ok ? 'succeeded' : 'failed',
      outcome.ok ? null : outcome.failure_class,
      outcome.ok ? null : outcome.message,
      now,
      now >= started ? now - started : 0,
      outcome.ok ? JSON.stringify(outcome.json) : null,
      reply.text,
      validationOf(row.output_schema_hash, outcome),
      reply.finish_reason,
      chunks.length,
      id,
    ],
  );
  if (r.changes !== 1) return null;
  if (outcome.ok) return { ok: true, source_invocation_id: id, output: outcome.json };
  const error = new SourceFailure(outcome.failure_class, outcome.message);
  return { ok: false, source_invocation_id: id, failure_class: outcome.failure_class, error };
}

/**
 * `keepCompleteReply` for the latest invocation of `contract_id` within its attempt (when the call
 * carried one) or its run: what a recovering caller asks when the call's row did not finish.
 */
export async function keepReplyOfContract(
  store: Store,
  scope: { contract_id: string; run_id: string; attempt_id?: string | null },
): Promise<FinishedCall | null> {
  const row = scope.attempt_id
    ? await store.get<{ source_invocation_id: string }>(
        `SELECT source_invocation_id FROM source_invocations WHERE attempt_id = ? AND contract_id = ?
         ORDER BY invocation_seq DESC LIMIT 1`,
        [scope.attempt_id, scope.contract_id],
      )
    : await store.get<{ source_invocation_id: string }>(
        `SELECT source_invocation_id FROM source_invocations WHERE attempt_id IS NULL AND run_id = ? AND contract_id = ?
         ORDER BY invocation_seq DESC LIMIT 1`,
        [scope.run_id, scope.contract_id],
      );
  return row ? keepCompleteReply(store, row.source_invocation_id) : null;
}
