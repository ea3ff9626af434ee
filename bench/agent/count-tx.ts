/**
 * `node bench/agent/count-tx.ts`: transactions, autocommit statements, commits that wait for the
 * disk (synchronous: not `deferred`) and statements per agent interaction with one tool call (the
 * agent bench's interaction), on each selected store. `node bench/agent/round-trips.ts` counts the
 * same interaction's PostgreSQL round trips and synchronous COMMITs at the `pg` client.
 * BENCH_AGENT_TRACE=1 lists them for the last interaction.
 */

import { startFixtureHttpServer } from '../../src/dev/mcp-fixture-server.ts';
import { startScriptedModel } from '../../src/dev/scripted-model/index.ts';
import { createAgentRuntime } from '../../src/runtimes/agent/index.ts';
import { BENCH_AGENT_SCRIPT } from '../../src/testing/bench-agent.ts';
import { openTestStore, selectedStores } from '../../src/testing/stores.ts';
import { putBenchAgent } from '../lib/agent-interaction.ts';
import { countingStore } from './counting-store.ts';

const model = await startScriptedModel({ script: BENCH_AGENT_SCRIPT as never });
const mcp = await startFixtureHttpServer();
const env = { NOEMA_LLM_BASE_URL: model.url, NOEMA_LLM_MODEL: 'scripted', BENCH_MCP_URL: mcp.url };
const tracing = process.env.BENCH_AGENT_TRACE === '1';
try {
  for (const kind of selectedStores()) {
    const { store: raw, dispose } = await openTestStore(kind);
    let lines: string[] = [];
    const { store, counts } = countingStore(raw, tracing ? (l) => lines.push(l) : undefined);
    const runtime = await createAgentRuntime(store, { env });
    try {
      const { hash } = await putBenchAgent(store, runtime);
      const { session_id } = await runtime.createSession({ agent_ref: { hash }, user_id: 'bench' });
      const n = 5;
      let before = { ...counts };
      for (let i = 0; i < n; i++) {
        if (i === n - 1) {
          before = { ...counts };
          lines = [];
        }
        const turn = await runtime.sendMessage(session_id, { content: 'add 2 and 3' });
        if (turn.response !== 'The sum is 5.') throw new Error(`unexpected reply ${turn.response}`);
      }
      console.log(
        `[${kind}] per interaction: ${counts.transactions - before.transactions} transactions, ` +
          `${counts.autocommit - before.autocommit} autocommit statements, ` +
          `${counts.synchronous - before.synchronous} commits waiting for the disk, ${counts.statements - before.statements} statements`,
      );
      if (tracing) console.log(lines.join('\n'));
    } finally {
      await runtime.close();
      await dispose();
    }
  }
} finally {
  await model.close();
  await mcp.close();
}
