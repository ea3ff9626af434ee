/** Shared helpers for the world specs: scripted replies, and reading an attempt's invocations. */
import { getAttempt } from '../../src/runtimes/world/index.ts';
import { getSourceInvocation } from '../../src/sources/index.ts';
import type { Store } from '../../src/store/store.ts';
import type { ParkKit } from '../../src/testing/world-kit.ts';

export const finalPatch = (narration: string, effects: unknown[] = []) => ({
  json: { kind: 'final_patch', tool_call: null, patch: { narration, effects } },
});
export const toolCall = (name: string, args: Record<string, unknown>) => ({
  json: { kind: 'tool_call', tool_call: { name, arguments: args }, patch: null },
});

export type InvocationRow = Record<string, unknown> & {
  source_invocation_id: string;
  invocation_kind: string;
  status: string;
};

/** The attempt's invocations in order, each read in full (request and response JSON). */
export async function invocationsOf(store: Store, attempt_id: string): Promise<InvocationRow[]> {
  const a = await getAttempt(store, { attempt_id });
  const out: InvocationRow[] = [];
  for (const i of a.source_invocations)
    out.push((await getSourceInvocation(store, i.source_invocation_id)) as unknown as InvocationRow);
  return out;
}

export async function count(store: Store, sql: string, params: Array<string | number> = []): Promise<number> {
  const r = await store.get<{ n: number }>(sql, params);
  return Number(r?.n ?? 0);
}

/**
 * Creates world `slug` of a park variant whose subjects are the ant first (no ambient source of its
 * own), then Bob, whose first generation opens with his phone inbox.
 */
export async function antThenBobWorld(kit: ParkKit, slug: string): Promise<void> {
  const scenario = await kit.variant({
    subjects: [
      { entity_id: 'ant', profile: kit.doc('profiles/ant.json') },
      { entity_id: 'bob', profile: kit.doc('profiles/park-visitor.json') },
    ],
  });
  await kit.world(slug, scenario);
}
