/**
 * Noema's side of the engine benchmark as a child process, like every anchor: a fresh process per
 * repeat, the same warm-up (20 steps unless `warmup` is given), one measured run. Prints one JSON line.
 * `run <size> <steps> <iterations> [warmup]`: the loop, then suspend and cold resume.
 * `floor <size> <steps> [warmup]`: the raw SQLite commit floor (node:sqlite, one INSERT + COMMIT per step).
 */
import { noemaLoop, noemaSuspendResume, rawCommitFloor } from './noema-cases.ts';

const [mode, sizeArg, stepsArg, ...rest] = process.argv.slice(2);
const size = Number(sizeArg);
const steps = Number(stepsArg);
// `run` takes the suspend/resume iterations before the warm-up; `floor` only the warm-up.
const [itersArg, warmupArg] = mode === 'floor' ? [undefined, rest[0]] : rest;
const warmup = warmupArg === undefined ? 20 : Number(warmupArg);
if (mode === 'floor') {
  const f = await rawCommitFloor(size, steps, warmup);
  console.log(
    JSON.stringify({
      node: process.version,
      stepUs: f.steps,
      bytesPerStep: f.bytesPerStep,
      writtenPerStep: f.writtenPerStep,
      cpuPerStepUs: f.cpuPerStepUs,
    }),
  );
} else if (mode === 'run') {
  const loop = await noemaLoop(size, steps, 'sqlite', warmup);
  const sr = await noemaSuspendResume(Number(itersArg));
  console.log(
    JSON.stringify({
      node: process.version,
      stepUs: loop.steps,
      bytesPerStep: loop.bytesPerStep,
      writtenPerStep: loop.writtenPerStep,
      cpuPerStepUs: loop.cpuPerStepUs,
      suspendUs: sr.suspendUs,
      coldResumeUs: sr.coldResumeUs,
    }),
  );
} else {
  console.error(`noema-side: unknown mode ${mode}`);
  process.exitCode = 2;
}
