/**
 * A CPU profile of this process's main thread around the timed part of a profile script
 * (`bench/<name>/profile.ts`), written as a `.cpuprofile` (Chrome DevTools, speedscope); nothing is
 * started without a path. A path ending in `.heapprofile` takes a sampling heap profile of the same
 * part instead, the objects either collector has freed since included: what the timed part
 * allocates, by function (`node bench/lib/heap-profile-summary.ts`).
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

/** Bytes between heap samples: small enough that a unit's few kilobytes are counted. */
const HEAP_SAMPLING_BYTES = 256;

/** Starts sampling (every `intervalUs`, V8's default 1 000 µs otherwise); the returned function stops and writes it. */
export async function startCpuProfile(
  out: string | undefined,
  intervalUs?: number,
): Promise<() => Promise<void>> {
  if (!out) return async () => {};
  const session = new Session();
  session.connect();
  if (out.endsWith('.heapprofile')) {
    await session.post('HeapProfiler.enable');
    await session.post('HeapProfiler.startSampling', {
      samplingInterval: HEAP_SAMPLING_BYTES,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
    return async () => {
      const { profile } = await session.post('HeapProfiler.stopSampling');
      writeFileSync(out, JSON.stringify(profile));
      session.disconnect();
    };
  }
  await session.post('Profiler.enable');
  if (intervalUs !== undefined) await session.post('Profiler.setSamplingInterval', { interval: intervalUs });
  await session.post('Profiler.start');
  return async () => {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(out, JSON.stringify(profile));
    session.disconnect();
  };
}
