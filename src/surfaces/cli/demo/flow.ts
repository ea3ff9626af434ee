/**
 * The demo's flowchart run: `examples/flowcharts/support-triage.json` (memory, plan, milestone and
 * decision nodes) imported once into the demo store, then run on a customer message against its
 * scripted model, reporting each node as it starts and finishes.
 */
import {
  createFlowEngine,
  createFlowRun,
  getFlowRun,
  importFlowchart,
  listFlowcharts,
  NODE_UPDATED,
  subscribeFlowRun,
} from '../../../runtimes/flow/index.ts';
import type { Store } from '../../../store/store.ts';
import { readJsonFile } from '../files.ts';
import { DEMO_FILES, type Env } from './services.ts';

export const DEMO_FLOW_INPUT = { message: 'The office printer jams on every page and I need it today.' };

export interface DemoFlowRun {
  flowchart_id: string;
  flowchart_run_id: string;
  status: string;
  /** Node types that succeeded, in order. */
  nodes: Array<{ id: string; type: string; status: string }>;
}

/** The demo flowchart's id: the one imported by an earlier run, else a fresh import. */
async function demoFlowchartId(store: Store): Promise<string> {
  const doc = readJsonFile(DEMO_FILES.flowchart, 'flowchart file') as { name: string };
  const existing = (await listFlowcharts(store, { limit: 200 })).items.find((f) => f.name === doc.name);
  if (existing) return existing.flowchart_id;
  return (await importFlowchart(store, doc)).flowchart_id;
}

export async function runDemoFlow(
  store: Store,
  env: Env,
  onStatus: (line: string) => void,
): Promise<DemoFlowRun> {
  const engine = createFlowEngine(store, { env });
  try {
    const flowchart_id = await demoFlowchartId(store);
    const created = await createFlowRun(store, engine, flowchart_id, { input: DEMO_FLOW_INPUT });
    const unsubscribe = await subscribeFlowRun(
      engine,
      store,
      { ...created, created_at: new Date().toISOString() },
      (e) => {
        if (e.event === NODE_UPDATED)
          onStatus(`${e.flowchart_node_id} (${e.flowchart_node_type}) ${e.status}`);
      },
    );
    let outcome: Awaited<ReturnType<typeof engine.continueRun>>;
    try {
      outcome = await engine.continueRun(created.flowchart_run_id);
    } finally {
      await unsubscribe();
    }
    const view = await getFlowRun(store, engine, created.flowchart_run_id);
    return {
      flowchart_id,
      flowchart_run_id: created.flowchart_run_id,
      status: outcome.status,
      nodes: view.node_runs.map((n) => ({
        id: String(n.flowchart_node_id),
        type: String(n.flowchart_node_type),
        status: String(n.status),
      })),
    };
  } finally {
    await engine.close();
  }
}
