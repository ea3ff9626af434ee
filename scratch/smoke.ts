import { openTestStore } from '/work/wt/world/src/testing/stores.ts';
import { startScriptedModel, loadScript } from '/work/wt/world/src/testing/scripted-model/index.ts';
import { startToyServices } from '/work/wt/world/src/testing/toys/index.ts';
import { applyBundle, createWorld, createWorldRuntime, getWorld } from '/work/wt/world/src/runtimes/world/index.ts';
const ts = await openTestStore((process.env.STORE ?? 'sqlite') as 'sqlite');
const model = await startScriptedModel({ script: loadScript('/work/wt/world/examples/park/model-script.json') });
const toys = await startToyServices();
const env = { ...toys.env, NOEMA_LLM_BASE_URL: model.url, NOEMA_LLM_MODEL: 'scripted' };
try {
  const b = await applyBundle(ts.store, '/work/wt/world/examples/park');
  console.log(b.scenario_hash, b.documents.length);
  await createWorld(ts.store, { world_slug: 'park', scenario_ref: { hash: b.scenario_hash } });
  const rt = createWorldRuntime(ts.store, { env });
  for (let i = 0; i < 3; i++) {
    const r = await rt.runTurn({ world_slug: 'park' }, { onProgress: (p) => console.log('  progress', JSON.stringify(p)) });
    console.log(JSON.stringify(r, null, 1));
  }
  console.log(JSON.stringify(await getWorld(ts.store, { world_slug: 'park' }), null, 1));
  await rt.close();
} finally {
  await model.close(); await toys.close(); await ts.dispose();
}
