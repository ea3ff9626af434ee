/**
 * The tracing row's call, shared by the sources bench and its profile script: a streamed LLM call
 * against the scripted model, made durable through `invokeSource` (traced) or planned and executed
 * bare, with the same request, result schema and source.
 */
import { invokeSource, putJsonSchema, putResponseSource } from '../../src/sources/index.ts';
import { llmChatCompletionsSource } from '../../src/sources/llm/source.ts';
import type { Store } from '../../src/store/store.ts';

export const SCHEMA = { type: 'object', required: ['kind'], properties: { kind: { type: 'string' } } };
export const REQUEST = {
  messages: [
    { role: 'system' as const, content: 'You are Bob.' },
    { role: 'user' as const, content: 'Act.' },
  ],
};
export const REPLY = {
  kind: 'final_patch',
  patch: { narration: 'Bob waits by the vending machine.', effects: [] },
};

/** The source and schema stored, and the call both ways; `env` points at the scripted model. */
export async function tracingCalls(store: Store, env: Record<string, string>) {
  const source = await putResponseSource(store, {
    version: 1,
    interface: { name: 'llm_chat_completions', model: 'scripted', schema_delivery: 'response_format' },
  });
  const resultSchema = await putJsonSchema(store, SCHEMA);
  /** The traced call, through `via` (the store, or a wrapper of it that times its transactions). */
  const traced = async (via: Store = store) => {
    const out = await invokeSource(via, {
      source,
      request: REQUEST,
      kind: 'llm_generation',
      resultSchema,
      env,
    });
    if (!out.ok) throw out.error;
  };
  const bare = async () => {
    const plan = await llmChatCompletionsSource.plan({
      iface: source.content.interface,
      store,
      request: REQUEST,
      kind: 'llm_generation',
      links: {},
      resultSchema,
      env,
      timeoutMs: undefined,
    });
    await plan.execute({
      signal: new AbortController().signal,
      source_invocation_id: 'bench',
      timedOut: () => false,
      cancelled: () => false,
      progressed: () => {},
    });
  };
  return { source, resultSchema, traced, bare };
}
