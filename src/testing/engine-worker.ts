/**
 * A real engine process for crash and multi-process tests: `node engine-worker.ts drain` claims runs
 * until none is left; `resume <run_id> <contract_id> <json>` answers a WAITING contract. NOEMA_DB names
 * the store, ENGINE_LOG the file the counting executor appends contract ids to, ENGINE_TRACE a file each
 * committed node execution is appended to (`run_id step pid`), ENGINE_LEASE_MS the lease, and
 * ENGINE_EVENTS a file each event of run ENGINE_EVENTS_RUN is appended to as it is delivered (one JSON
 * line; written synchronously, so a kill -9 leaves every event the process delivered).
 */
import { appendFileSync } from 'node:fs';
import { migrations } from '../app/migrations.ts';
import { createEngine } from '../engine/index.ts';
import { openStore, parseStoreTarget } from '../store/index.ts';
import { CountingExecutor, registerKit } from './engine-kit.ts';

const [mode, ...args] = process.argv.slice(2);
const store = await openStore(parseStoreTarget(process.env.NOEMA_DB), { migrations });
const engine = createEngine(store, {
  actions: new CountingExecutor(process.env.ENGINE_LOG ? { logFile: process.env.ENGINE_LOG } : {}),
  leaseMs: Number(process.env.ENGINE_LEASE_MS ?? 30_000),
});
registerKit(engine);
const trace = process.env.ENGINE_TRACE;
if (trace) {
  // Records which process executed which step, to prove no run step is executed by two workers.
  engine.register({
    type: 'traced',
    async execute(ctx) {
      appendFileSync(trace, `${ctx.run_id} ${ctx.step} ${process.pid}\n`);
      await new Promise((r) => setTimeout(r, 2));
      const n = ((ctx.state.count as number | null) ?? 0) + 1;
      return { kind: 'ok', writes: { count: n }, route: n < 5 ? 'again' : 'done' };
    },
  });
}

const eventsFile = process.env.ENGINE_EVENTS;
if (eventsFile && process.env.ENGINE_EVENTS_RUN) {
  await engine.subscribe(process.env.ENGINE_EVENTS_RUN, (e) =>
    appendFileSync(eventsFile, `${JSON.stringify({ seq: e.seq, type: e.type, pid: process.pid })}\n`),
  );
}

if (mode === 'drain') {
  const idleExitMs = Number(process.env.ENGINE_IDLE_EXIT_MS ?? 1500);
  let idleSince = Date.now();
  for (;;) {
    const outcome = await engine.claimNext();
    if (outcome) {
      console.log(JSON.stringify({ claimed: outcome.run_id, status: outcome.status, step: outcome.step }));
      idleSince = Date.now();
    } else {
      if (Date.now() - idleSince > idleExitMs) break;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
} else if (mode === 'resume') {
  const [runId, contractId, json] = args as [string, string, string];
  try {
    const outcome = await engine.resume(runId, contractId, JSON.parse(json));
    console.log(JSON.stringify({ ok: true, outcome }));
  } catch (err) {
    const e = err as { code?: string; message: string };
    console.log(JSON.stringify({ ok: false, code: e.code, message: e.message }));
  }
} else {
  console.error(`engine-worker: unknown mode ${mode}`);
  process.exitCode = 2;
}
await engine.close();
await store.close();
