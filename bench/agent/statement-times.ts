/**
 * `node bench/agent/statement-times.ts [interactions=300]`: each SQLite statement of an agent
 * interaction (the agent bench's message with one MCP tool call) timed where it runs — the store
 * connection's `runSync`, `getSync`, `allSync`, `BEGIN IMMEDIATE` and `COMMIT` wrapped with
 * `performance.now()` — summed by statement over `interactions` messages after 200 of warm-up (a
 * new session every 10), and printed per interaction with the time of one call. Set beside the same
 * statement timed hot, it shows what a statement costs in place, between the turn's socket work.
 */
import { createAgentRuntime } from '../../src/runtimes/agent/index.ts';
import { SqliteConnection } from '../../src/store/sqlite/connection.ts';
import { openTestStore } from '../../src/testing/stores.ts';
import { benchConversation, putBenchAgent, startAgentServices } from '../lib/agent-interaction.ts';

const n = Number(process.argv[2] ?? 300);
/** Milliseconds and calls by statement, while `timing` is on. */
const times = new Map<string, { ms: number; calls: number }>();
let timing = false;

type Method = (this: SqliteConnection, ...args: unknown[]) => unknown;
const proto = SqliteConnection.prototype as unknown as Record<string, Method>;
for (const name of ['runSync', 'getSync', 'allSync', 'beginImmediate', 'commit']) {
  const original = proto[name]!;
  proto[name] = function (this: SqliteConnection, ...args: unknown[]) {
    if (!timing) return original.apply(this, args);
    const t0 = performance.now();
    try {
      return original.apply(this, args);
    } finally {
      const sql = typeof args[0] === 'string' ? args[0].replace(/\s+/g, ' ').slice(0, 90) : '';
      const key = sql ? `${name} ${sql}` : name;
      const e = times.get(key) ?? { ms: 0, calls: 0 };
      e.ms += performance.now() - t0;
      e.calls++;
      times.set(key, e);
    }
  };
}

const services = await startAgentServices();
const { store, dispose } = await openTestStore('sqlite');
const runtime = await createAgentRuntime(store, { env: services.env });
try {
  const { hash } = await putBenchAgent(store, runtime);
  const interaction = benchConversation(runtime, hash);
  for (let i = 0; i < 200; i++) await interaction();
  timing = true;
  for (let i = 0; i < n; i++) await interaction();
  timing = false;
  let total = 0;
  for (const e of times.values()) total += e.ms;
  console.log(`SQLite statements: ${((total / n) * 1000).toFixed(0)} µs an interaction`);
  for (const [key, e] of [...times].sort((a, b) => b[1].ms - a[1].ms)) {
    const perInteraction = ((e.ms / n) * 1000).toFixed(1).padStart(7);
    const each = ((e.ms / e.calls) * 1000).toFixed(1).padStart(6);
    console.log(`${perInteraction} µs  ${(e.calls / n).toFixed(1).padStart(4)} ×  ${each} µs each  ${key}`);
  }
} finally {
  await runtime.close();
  await dispose();
  await services.close();
}
