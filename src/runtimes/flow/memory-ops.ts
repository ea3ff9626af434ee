/**
 * The `llmctl-mcp` memory operations: what memory nodes execute through their system binding and
 * what the flow MCP catalog's llmctl_memory_* tools call — one implementation over the long-term
 * memory store, flowchart-scoped.
 */
import { addMemory, type MemoryRecord, retrieveMemories } from '../../memory/index.ts';
import type { Queryable, Store, Transaction } from '../../store/store.ts';

export async function llmctlMemoryAdd(
  db: Queryable,
  input: {
    flowchart_id: string;
    text: string;
    store_mode?: 'append' | 'replace';
    kind?: string;
    meta?: Record<string, unknown>;
  },
): Promise<{ memory: MemoryRecord; operation: 'created' | 'replaced' }> {
  return addMemory(db, {
    scope_kind: 'flowchart',
    scope_id: input.flowchart_id,
    text: input.text,
    store_mode: input.store_mode ?? 'append',
    ...(input.kind ? { kind: input.kind } : {}),
    ...(input.meta ? { meta: input.meta } : {}),
  });
}

export async function llmctlMemoryRetrieve(
  db: Store | Transaction,
  input: { flowchart_id: string; query_text?: string; memory_id?: number; limit?: number },
) {
  return retrieveMemories(db, {
    scope_kind: 'flowchart',
    scope_id: input.flowchart_id,
    ...(input.query_text ? { query_text: input.query_text } : {}),
    ...(input.memory_id !== undefined ? { memory_id: input.memory_id } : {}),
    ...(input.limit !== undefined ? { limit: input.limit } : {}),
  });
}
