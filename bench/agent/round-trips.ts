/**
 * `node bench/agent/round-trips.ts`: PostgreSQL round trips of one agent interaction with one tool
 * call (the agent bench's), beside its three source calls made with `invokeSource` alone, counted at
 * the `pg` client — a query sent while none of its connection's is in flight starts one (on the
 * pipelined connection, the queries sent before the first answer share it) — with the COMMITs that
 * wait for the disk and those that do not (`synchronous_commit = off`). BENCH_AGENT_TRACE=1 lists an
 * interaction's queries, `RT` marking each that starts a round trip and `SYNC` each COMMIT that waits.
 */
import { createAgentRuntime } from '../../src/runtimes/agent/index.ts';
import { REASONING_REPLY_DELIVERY } from '../../src/runtimes/agent/reply-schema.ts';
import { getResponseSource, invokeSource, putJsonSchema } from '../../src/sources/index.ts';
import { countPgRoundTrips, type PgCounts } from '../../src/testing/pg-round-trips.ts';
import { openTestStore } from '../../src/testing/stores.ts';
import { putBenchAgent, startAgentServices } from '../lib/agent-interaction.ts';

const tracing = process.env.BENCH_AGENT_TRACE === '1';
const { counts, lines } = countPgRoundTrips(tracing);
type Counts = PgCounts;

const RUNS = 5;
const services = await startAgentServices();
const env = services.env;
const { store, dispose } = await openTestStore('postgres');
const runtime = await createAgentRuntime(store, { env });
try {
  const { llm, hash, definition } = await putBenchAgent(store, runtime);
  const { session_id } = await runtime.createSession({ agent_ref: { hash }, user_id: 'bench' });
  const interaction = async () => {
    const turn = await runtime.sendMessage(session_id, { content: 'add 2 and 3' });
    if (turn.response !== 'The sum is 5.') throw new Error(`unexpected reply ${turn.response}`);
  };
  for (let i = 0; i < 3; i++) await interaction();
  const schema = await putJsonSchema(store, REASONING_REPLY_DELIVERY);
  const tool = await getResponseSource(store, definition.tools[0]!.source_ref.hash);
  const messages = (text: string) => [
    { role: 'system', content: `REASONING CONTEXT ${text}` },
    { role: 'user', content: 'add 2 and 3' },
  ];
  const per = (a: Counts, b: Counts) =>
    Object.entries(a)
      .map(([k, v]) => `${k} ${(v - b[k as keyof Counts]) / RUNS}`)
      .join(', ');
  let before = { ...counts };
  lines.length = 0;
  for (let i = 0; i < RUNS; i++) {
    if (i === RUNS - 1) lines.length = 0;
    await interaction();
  }
  const one = [...lines];
  console.log(`interaction: ${per(counts, before)}`);
  before = { ...counts };
  for (let i = 0; i < RUNS; i++) {
    for (const call of [
      { source: llm, request: { messages: messages('') }, kind: 'llm_generation', resultSchema: schema },
      { source: tool, request: { a: 2, b: 3 }, kind: 'agent_tool_call' },
      { source: llm, request: { messages: messages('✓ add') }, kind: 'llm_generation', resultSchema: schema },
    ] as const) {
      const r = await invokeSource(store, { ...call, env } as never);
      if (!r.ok) throw new Error(`a direct source call failed: ${JSON.stringify(r.error)}`);
    }
  }
  console.log(`its 3 calls alone: ${per(counts, before)} (+ one autocommit per call's running row)`);
  if (tracing) console.log(one.join('\n'));
} finally {
  await runtime.close();
  await dispose();
  await services.close();
}
