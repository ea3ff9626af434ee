/**
 * Test helpers for the flowchart runtime: a scripted model wired into a flow engine, and graph
 * builders. (Imported by the flow tests and the benchmark.)
 */
import { readFileSync } from 'node:fs';
import { type ModelScript, startScriptedModel } from '../dev/scripted-model/index.ts';
import type { Engine } from '../engine/index.ts';
import { createFlowEngine, type FlowEngineOptions } from '../runtimes/flow/index.ts';
import type { Store } from '../store/store.ts';

export const EXAMPLE = new URL('../../examples/flowcharts/support-triage.json', import.meta.url);
export const EXAMPLE_SCRIPT = new URL(
  '../../examples/flowcharts/support-triage.script.json',
  import.meta.url,
);

export const readJson = (u: URL) => JSON.parse(readFileSync(u, 'utf8'));

export interface FlowKit {
  engine: Engine;
  model: Awaited<ReturnType<typeof startScriptedModel>>;
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function flowKit(
  store: Store,
  script: ModelScript,
  options: FlowEngineOptions = {},
): Promise<FlowKit> {
  const model = await startScriptedModel({ script });
  const env = { NOEMA_LLM_BASE_URL: model.url, NOEMA_LLM_MODEL: 'scripted' };
  const engine = createFlowEngine(store, { env, ...options });
  return {
    engine,
    model,
    env,
    async close() {
      await engine.close();
      await model.close();
    },
  };
}
