/**
 * Tokens and cost summed over a set of LLM calls, read when asked (nothing is written for it): the
 * calls of engine runs (an agent message, a flowchart run: `attempt_id` NULL, through the run index)
 * or of a world attempt (through the attempt index). Tokens are summed as each call's `tokens`
 * reports them (a count the provider did not report adds nothing, and the calls without it are
 * counted); cost from each call's `cost` artifact, per currency, with the calls that have no amount
 * (no price for the model, no usage, no price table) counted as `unpriced`.
 */
import type { Queryable, SqlValue } from '../../store/store.ts';
import { tokensOf } from '../llm/usage.ts';

export interface LlmUsageSum {
  /** LLM calls summed (running ones included: they add what they have so far, usually nothing). */
  calls: number;
  tokens: { input: number; output: number; cached: number; reasoning: number };
  /** Calls whose provider did not report that count (their count is not in the sum). */
  not_reported: { input: number; output: number; cached: number; reasoning: number };
  /** The summed `cost` artifacts by currency (`{}` when no call was priced). */
  cost: Record<string, number>;
  /** Calls with no cost amount (no price table, no price for the model, no usage reported). */
  unpriced: number;
}

/** The most run ids one sum reads (an agent session's messages). */
export const MAX_SUM_RUNS = 500;

type Row = { usage_json: unknown; artifacts_json: unknown };

const COLUMNS = 'llm_usage_json AS usage_json, llm_artifacts_json AS artifacts_json';

function parse(v: unknown): unknown {
  if (typeof v !== 'string') return v ?? null;
  try {
    return JSON.parse(v);
  } catch {
    return null;
  }
}

function sum(rows: Row[]): LlmUsageSum {
  const out: LlmUsageSum = {
    calls: rows.length,
    tokens: { input: 0, output: 0, cached: 0, reasoning: 0 },
    not_reported: { input: 0, output: 0, cached: 0, reasoning: 0 },
    cost: {},
    unpriced: 0,
  };
  for (const row of rows) {
    const t = tokensOf(parse(row.usage_json) as Record<string, unknown> | null);
    for (const k of ['input', 'output', 'cached', 'reasoning'] as const) {
      const n = t[k];
      if (n === null) out.not_reported[k]++;
      else out.tokens[k] += n;
    }
    const artifacts = parse(row.artifacts_json);
    const cost = Array.isArray(artifacts)
      ? (artifacts.find((a) => (a as { kind?: unknown })?.kind === 'cost') as
          | { content?: { amount?: unknown; currency?: unknown } }
          | undefined)
      : undefined;
    const amount = cost?.content?.amount;
    const currency = cost?.content?.currency;
    if (typeof amount === 'number' && Number.isFinite(amount) && typeof currency === 'string')
      out.cost[currency] = (out.cost[currency] ?? 0) + amount;
    else out.unpriced++;
  }
  return out;
}

/**
 * The LLM calls of engine runs (`run_ids`: one run, or an agent session's message runs) or of one
 * world attempt (`attempt_id`), summed.
 */
export async function llmUsageSum(
  q: Queryable,
  of: { run_ids: string[] } | { attempt_id: string },
): Promise<LlmUsageSum> {
  let where: string;
  let params: SqlValue[];
  if ('attempt_id' in of) {
    where = 'attempt_id = ?';
    params = [of.attempt_id];
  } else {
    const ids = of.run_ids.slice(0, MAX_SUM_RUNS);
    if (ids.length === 0) return sum([]);
    where = `attempt_id IS NULL AND run_id IN (${ids.map(() => '?').join(', ')})`;
    params = ids;
  }
  const rows = await q.all<Row>(
    `SELECT ${COLUMNS} FROM source_invocations WHERE ${where} AND llm_call_id IS NOT NULL`,
    params,
  );
  return sum(rows);
}
