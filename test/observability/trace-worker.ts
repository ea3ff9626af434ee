// A real process for the trace resumption test: `run <flowchart_id> <traceparent>` creates a flowchart
// run as a request carrying that traceparent would, prints its id and executes it; `drain` claims runs
// until one ends. Tracing is configured by the OTEL_* variables; NOEMA_DB names the store.
import { migrations } from '../../src/app/migrations.ts';
import { startObservability, withIncomingTraceparent } from '../../src/observability/index.ts';
import { createFlowEngine, createFlowRun } from '../../src/runtimes/flow/index.ts';
import { openStore, parseStoreTarget } from '../../src/store/index.ts';

const [mode, ...args] = process.argv.slice(2);
const store = await openStore(parseStoreTarget(process.env.NOEMA_DB), { migrations });
const observability = await startObservability({ env: process.env, store, metrics: false });
const engine = createFlowEngine(store, { leaseMs: Number(process.env.FLOW_LEASE_MS ?? 30_000) });

if (mode === 'run') {
  const created = await withIncomingTraceparent(args[1], () =>
    createFlowRun(store, engine, args[0]!, { input: { message: 'jam' } }),
  );
  console.log(JSON.stringify({ flowchart_run_id: created.flowchart_run_id }));
  await engine.continueRun(created.flowchart_run_id);
} else {
  // As `serve` and `noema worker` do at start: the calls of dead processes are marked interrupted.
  const { recoverInterruptedInvocations } = await import('../../src/sources/recovery.ts');
  await recoverInterruptedInvocations(store);
  for (let idle = 0; idle < 500; ) {
    const outcome = await engine.claimNext();
    if (outcome && ['completed', 'failed', 'cancelled'].includes(outcome.status)) break;
    if (!outcome) {
      idle++;
      await new Promise((r) => setTimeout(r, 20));
    }
  }
}
await engine.close();
await observability.shutdown(5_000);
await store.close();
