import pg from 'pg';

const q = pg.Client.prototype.query as any;
(pg.Client.prototype as any).query = function (config: any, ...rest: unknown[]) {
  const text = typeof config === 'string' ? config : (config?.text ?? '');
  console.log('  Q ' + text.replace(/\s+/g, ' ').slice(0, 100));
  const out = q.call(this, config, ...rest);
  if (out && typeof out.then === 'function')
    out.then(
      () => console.log('  A ' + text.replace(/\s+/g, ' ').slice(0, 40)),
      () => console.log('  E ' + text.slice(0, 40)),
    );
  return out;
};
const { createFlowchart, runFlowchart } = await import('../src/runtimes/flow/index.ts');
const { flowKit } = await import('../src/testing/flow-kit.ts');
const { openTestStore } = await import('../src/testing/stores.ts');
const { SCRIPT, twentyNodes } = await import('./flow/graph.ts');
const { store, dispose } = await openTestStore('postgres');
const kit = await flowKit(store, SCRIPT);
const fc = await createFlowchart(store, { name: 'bench', graph: twentyNodes() });
for (let i = 0; i < 2; i++) await runFlowchart(store, kit.engine, fc.flowchart_id, { input: { go: true } });
console.log('==== RUN');
process.env.NOEMA_DBG_TX = '1';
await runFlowchart(store, kit.engine, fc.flowchart_id, { input: { go: true } });
process.env.NOEMA_DBG_TX = '';
await kit.close?.();
await dispose();
process.exit(0);
