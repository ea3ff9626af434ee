/**
 * A real flowchart-runtime process for crash tests: `node flow-worker.ts run <flowchart_id>` creates
 * a run, prints `{"flowchart_run_id": …}` and executes it; `drain` claims runs until none is left.
 * NOEMA_DB names the store, FLOW_LEASE_MS the lease; NOEMA_LLM_* the model.
 */
import { migrations } from '../app/migrations.ts';
import { createFlowEngine, createFlowRun } from '../runtimes/flow/index.ts';
import { openStore, parseStoreTarget } from '../store/index.ts';

const [mode, ...args] = process.argv.slice(2);
const store = await openStore(parseStoreTarget(process.env.NOEMA_DB), { migrations });
const engine = createFlowEngine(store, { leaseMs: Number(process.env.FLOW_LEASE_MS ?? 30_000) });

if (mode === 'run') {
  const created = await createFlowRun(store, engine, args[0]!, { input: JSON.parse(args[1] ?? '{}') });
  console.log(JSON.stringify({ flowchart_run_id: created.flowchart_run_id }));
  const outcome = await engine.continueRun(created.flowchart_run_id);
  console.log(JSON.stringify({ status: outcome.status }));
} else if (mode === 'drain') {
  for (let idle = 0; idle < 50; ) {
    const outcome = await engine.claimNext();
    if (outcome) console.log(JSON.stringify({ claimed: outcome.run_id, status: outcome.status }));
    else {
      idle++;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
} else {
  console.error(`flow-worker: unknown mode ${mode}`);
  process.exitCode = 2;
}
await engine.close();
await store.close();
