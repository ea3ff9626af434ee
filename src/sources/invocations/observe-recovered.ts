/**
 * Tells the telemetry observer of the invocations recovery marks `interrupted` (their process died
 * mid-call), so a trace shows the call that was lost. Loaded only when an observer is installed.
 */
import type { Telemetry } from '../../core/telemetry.ts';
import type { Transaction } from '../../store/store.ts';

const LINKS = [
  'run_id',
  'attempt_id',
  'contract_id',
  'world_slug',
  'attempted_turn',
  'workflow_hash',
  'workflow_node_id',
  'tool_name',
] as const;

type Recovered = Record<(typeof LINKS)[number], string | number | null> & {
  source_invocation_id: string;
  interface_name: string;
  invocation_kind: string;
  started_at: number;
  request_json: string;
  metadata: string;
  llm_model: string | null;
  llm_endpoint_name: string | null;
  llm_base_url: string | null;
};

/** The `running` invocations of `owner`, read in the transaction that marks them. */
export function runningOf(tx: Transaction, owner: string): Promise<Recovered[]> {
  return tx.all<Recovered>(
    `SELECT source_invocation_id, interface_name, invocation_kind, started_at, request_json, metadata,
            llm_model, llm_endpoint_name, llm_base_url, ${LINKS.join(', ')}
       FROM source_invocations WHERE owner_process_id = ? AND status = 'running'`,
    [owner],
  );
}

function parsed(text: string | null): unknown {
  try {
    return text === null ? null : JSON.parse(text);
  } catch {
    return null;
  }
}

/** Reports each as an invocation that ended `interrupted` when recovery marked it. */
export function reportInterrupted(t: Telemetry, rows: readonly Recovered[], ended_at: number): void {
  for (const r of rows) {
    const links: Record<string, unknown> = {};
    for (const k of LINKS) if (r[k] !== null) links[k] = k === 'attempted_turn' ? Number(r[k]) : r[k];
    try {
      t.invocationFinished?.({
        source_invocation_id: r.source_invocation_id,
        run_id: r.run_id === null ? null : String(r.run_id),
        node_id: r.workflow_node_id === null ? null : String(r.workflow_node_id),
        interface_name: r.interface_name,
        invocation_kind: r.invocation_kind,
        status: 'interrupted',
        failure_class: 'interrupted',
        started_at: Number(r.started_at),
        ended_at,
        links,
        metadata: (parsed(r.metadata) as Record<string, unknown> | null) ?? {},
        columns: {
          llm_model: r.llm_model,
          llm_endpoint_name: r.llm_endpoint_name,
          llm_base_url: r.llm_base_url,
        },
        // As stored: the durable row's request is already redacted.
        content: () => ({ request: parsed(r.request_json), response: null }),
      });
    } catch {
      // The observer logs its own incidents.
    }
  }
}
