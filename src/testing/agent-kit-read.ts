/** Reading back what the agent sent to the model, from the durable `llm_calls` trace (tests, docs). */
import { getLlmCall, listSourceInvocations } from '../sources/index.ts';
import type { Store } from '../store/store.ts';

export interface TracedPrompt {
  run_id: string;
  node_id: string | null;
  messages: Array<{ role: string; content: string }>;
}

/** Every LLM request of a run (or of all runs), oldest first, as stored in `llm_calls.request_messages`. */
export async function tracedPrompts(store: Store, run_id?: string): Promise<TracedPrompt[]> {
  const page = await listSourceInvocations(store, {
    invocation_kind: 'llm_generation',
    limit: 200,
    ...(run_id ? { run_id } : {}),
  });
  const out: TracedPrompt[] = [];
  for (const inv of [...page.items].reverse()) {
    if (!inv.llm_call_id) continue;
    const call = await getLlmCall(store, String(inv.llm_call_id));
    out.push({
      run_id: String(inv.run_id),
      node_id: (inv.workflow_node_id as string | null) ?? null,
      messages: call.request_messages as TracedPrompt['messages'],
    });
  }
  return out;
}
