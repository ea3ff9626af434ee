/**
 * A real process that executes given flowchart runs all at once, starting at a given wall-clock time,
 * so that two such processes collide on the rows the runs share (two-process race tests):
 * `node flow-burst.ts <start_at_ms> <run_id>…`, NOEMA_DB naming the store. Prints one line per run:
 * `{"run_id": …, "status": …, "error": …}`.
 */
import { migrations } from '../app/migrations.ts';
import { createFlowEngine } from '../runtimes/flow/index.ts';
import { openStore, parseStoreTarget } from '../store/index.ts';

const [startAt, ...runIds] = process.argv.slice(2);
const store = await openStore(parseStoreTarget(process.env.NOEMA_DB), { migrations });
const engine = createFlowEngine(store);
await new Promise((r) => setTimeout(r, Math.max(0, Number(startAt) - Date.now())));
await Promise.all(
  runIds.map(async (run_id) => {
    const outcome = await engine.continueRun(run_id).catch((err: unknown) => ({
      status: 'threw',
      error: { code: (err as { code?: string }).code, message: String(err) },
    }));
    console.log(
      JSON.stringify({ run_id, status: outcome.status, error: 'error' in outcome ? outcome.error : null }),
    );
  }),
);
await engine.close();
await store.close();
