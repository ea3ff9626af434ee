/**
 * `node bench/observability/profile.ts [off|on] [turns] [out.cpuprofile]`: runs the observability
 * bench's world turn (`bench/lib/world-turn.ts`, its model and toys in processes of their own) many times after warm-up (`BENCH_OBS_WARMUP` turns,
 * 5) on the first selected store, with nothing installed (`off`) or with span export on to a local
 * receiver (`on`, spans flushed after each turn, outside its time), and prints the wall time and the
 * CPU of the runs' thread per turn, and every thread's CPU by name (Linux); with a path, writes a CPU profile of the runs' thread over the
 * timed turns, to set beside the other side's (self time by function) to see what export adds where
 * the runs run. Under `instructions.sh` the timed turns (and their flushes) are the window callgrind
 * counts.
 */

import { installTelemetry } from '../../src/core/telemetry.ts';
import { toySources } from '../../src/dev/toys/index.ts';
import { startObservability } from '../../src/observability/index.ts';
import { createWorld, createWorldRuntime } from '../../src/runtimes/world/index.ts';
import { openTestStore, selectedStores } from '../../src/testing/stores.ts';
import { pause } from '../lib/callgrind-sync.ts';
import { startCpuProfile } from '../lib/cpu-profile.ts';
import { threadTimes, threadTimesSince } from '../lib/thread-times.ts';
import { putTurnWorkflow, startTurnServices, TURN_SUBJECTS, turnScenario } from '../lib/world-turn.ts';
import { startReceiver } from './receiver.ts';

const side = process.argv[2] ?? 'on';
if (side !== 'on' && side !== 'off') throw new Error('the side is on or off');
const turns = Number(process.argv[3] ?? 30);
const out = process.argv[4];

const receiver = await startReceiver();
const services = await startTurnServices(TURN_SUBJECTS);
const { store, dispose } = await openTestStore(selectedStores()[0]!);
const env = services.env;
const obs = await startObservability({
  env: side === 'on' ? { OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url } : { OTEL_SDK_DISABLED: 'true' },
  metrics: false,
  store,
});
const runtime = createWorldRuntime(store, { env });
try {
  const { workflow } = await putTurnWorkflow(store, toySources);
  const scenario = await turnScenario(store, TURN_SUBJECTS, TURN_SUBJECTS, workflow);
  let n = 0;
  let wall = 0;
  let cpu = 0;
  const turn = async () => {
    const slug = `w${n++}`;
    await createWorld(store, { world_slug: slug, scenario_ref: { hash: scenario } });
    const c0 = process.threadCpuUsage();
    const t0 = performance.now();
    const r = await runtime.runTurn({ world_slug: slug });
    wall += performance.now() - t0;
    const c = process.threadCpuUsage(c0);
    cpu += (c.user + c.system) / 1000;
    if (r.status !== 'committed') throw new Error(`turn ${r.status}`);
    await obs.flush();
  };
  for (let i = 0; i < Number(process.env.BENCH_OBS_WARMUP ?? 5); i++) await turn();
  wall = 0;
  cpu = 0;
  pause('start');
  const stopProfile = await startCpuProfile(out);
  const threads0 = threadTimes();
  for (let i = 0; i < turns; i++) await turn();
  const threads = threadTimesSince(threads0, turns);
  await stopProfile();
  pause('end');
  console.log(
    `${side}: ${(wall / turns).toFixed(1)} ms wall, ${(cpu / turns).toFixed(1)} ms CPU of the runs' thread per turn`,
  );
  // Every thread's CPU over the timed turns and their flushes (Linux): the export thread is a
  // `WorkerThread` beside the checkpointer's, V8's compiler and collectors are `V8Worker`s.
  if (threads.length > 0)
    console.log(`  by thread, ms a turn: ${threads.map(([n, ms]) => `${n} ${ms.toFixed(2)}`).join(', ')}`);
} finally {
  installTelemetry(null);
  await runtime.close();
  await obs.shutdown(3_000);
  await dispose();
  await services.close();
  await receiver.close();
}
