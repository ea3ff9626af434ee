/**
 * A CPU profile of this process's main thread around the timed part of a profile script
 * (`bench/<name>/profile.ts`), written as a `.cpuprofile` (Chrome DevTools, speedscope); nothing is
 * started without a path.
 */
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';

/** Starts sampling (every `intervalUs`, V8's default 1 000 µs otherwise); the returned function stops and writes it. */
export async function startCpuProfile(
  out: string | undefined,
  intervalUs?: number,
): Promise<() => Promise<void>> {
  if (!out) return async () => {};
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  if (intervalUs !== undefined) await session.post('Profiler.setSamplingInterval', { interval: intervalUs });
  await session.post('Profiler.start');
  return async () => {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(out, JSON.stringify(profile));
    session.disconnect();
  };
}
