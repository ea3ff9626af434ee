/**
 * `node bench/flow/profile.ts [flow|floor] [runs] [out.cpuprofile]`: runs only one side of the flow
 * bench (the 20-node flowchart, or its calls replayed with `invokeSource`) many times after warm-up,
 * on the first selected store, and prints its wall and CPU per run and the event loop's longest
 * delays over them (a stall: a checkpoint or a collection on the runs' thread); with a path, writes
 * a CPU profile of the timed runs alone there.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

import { uuidv7 } from '../../src/core/ids.ts';
import { createFlowchart, runFlowchart } from '../../src/runtimes/flow/index.ts';
import { invokeSource } from '../../src/sources/index.ts';
import { flowKit } from '../../src/testing/flow-kit.ts';
import { openTestStore, selectedStores } from '../../src/testing/stores.ts';
import { startCpuProfile } from '../lib/cpu-profile.ts';
import { callsOf, SCRIPT, twentyNodes } from './graph.ts';

const side = process.argv[2] ?? 'flow';
const runs = Number(process.argv[3] ?? 200);
const { store, dispose } = await openTestStore(selectedStores()[0]!);
const kit = await flowKit(store, SCRIPT);
try {
  const fc = await createFlowchart(store, { name: 'bench', graph: twentyNodes() });
  const once = async () => {
    const r = await runFlowchart(store, kit.engine, fc.flowchart_id, { input: { go: true } });
    if (r.outcome.status !== 'completed') throw new Error(`run ${r.outcome.status}`);
    return r.flowchart_run_id;
  };
  const calls = await callsOf(store, await once());
  const replay = async () => {
    const run_id = uuidv7();
    for (const { call } of calls) {
      const out = await invokeSource(store, { ...call, links: { ...call.links, run_id }, env: kit.env });
      if (!out.ok) throw new Error('replay failed');
    }
  };
  const op = side === 'flow' ? once : replay;
  for (let i = 0; i < 10; i++) await op();
  const out = process.argv[4];
  const stopProfile = await startCpuProfile(out);
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < runs; i++) await op();
  const c = process.cpuUsage(c0);
  loop.disable();
  await stopProfile();
  const ms = (ns: number) => (ns / 1e6).toFixed(1);
  console.log(
    `${side}: ${((performance.now() - t0) / runs).toFixed(2)} ms wall, ${((c.user + c.system) / 1000 / runs).toFixed(2)} ms CPU per run; event loop delay p99 ${ms(loop.percentile(99))} ms, max ${ms(loop.max)} ms`,
  );
} finally {
  await kit.close();
  await dispose();
}
