/**
 * `node bench/sources/profile.ts [traced|bare] [calls] [out.cpuprofile]`: one side of the sources
 * bench's tracing row — the streamed LLM call made durable with `invokeSource`, or the same call
 * planned and executed bare — many times after warm-up on the first selected store, against the
 * scripted model in a process of its own; prints wall and CPU per call, and with a path writes a
 * CPU profile of the timed calls, to set beside the other side's.
 */

import { openTestStore, selectedStores } from '../../src/testing/stores.ts';
import { startCpuProfile } from '../lib/cpu-profile.ts';
import { scriptedModel, startDevServices } from '../lib/dev-services.ts';
import { REPLY, tracingCalls } from './calls.ts';

const side = process.argv[2] ?? 'traced';
const calls = Number(process.argv[3] ?? 2000);
const out = process.argv[4];
const model = await startDevServices([
  scriptedModel({ rules: [], default: { json: REPLY, chunk_chars: 16 } }),
]);
const env = { NOEMA_LLM_BASE_URL: model.urls[0]! };
const { store, dispose } = await openTestStore(selectedStores()[0]!);
try {
  const { traced, bare } = await tracingCalls(store, env);
  const op = side === 'traced' ? traced : bare;
  for (let i = 0; i < 300; i++) await op();
  const stopProfile = await startCpuProfile(out, 100);
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < calls; i++) await op();
  const c = process.cpuUsage(c0);
  await stopProfile();
  console.log(
    `${side}: ${(((performance.now() - t0) / calls) * 1000).toFixed(0)} µs wall, ${((c.user + c.system) / calls).toFixed(0)} µs CPU per call`,
  );
} finally {
  await dispose();
  await model.close();
}
