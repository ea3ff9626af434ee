/**
 * Noema's side of the engine benchmark as a child process, like every anchor: a fresh process per
 * repeat, the same 20-step warm-up, one measured run. Prints one JSON line.
 * `run <size> <steps> <iterations>`: the loop, then suspend and cold resume.
 * `floor <size> <steps>`: the raw SQLite commit floor (node:sqlite, one INSERT + COMMIT per step).
 */
import { noemaLoop, noemaSuspendResume, rawCommitFloor } from './noema-cases.ts';

const [mode, sizeArg, stepsArg, itersArg] = process.argv.slice(2);
const size = Number(sizeArg);
const steps = Number(stepsArg);
if (mode === 'floor') {
  const f = await rawCommitFloor(size, steps);
  console.log(
    JSON.stringify({
      node: process.version,
      stepUs: f.steps,
      bytesPerStep: f.bytesPerStep,
      writtenPerStep: f.writtenPerStep,
    }),
  );
} else if (mode === 'run') {
  const loop = await noemaLoop(size, steps);
  const sr = await noemaSuspendResume(Number(itersArg));
  console.log(
    JSON.stringify({
      node: process.version,
      stepUs: loop.steps,
      bytesPerStep: loop.bytesPerStep,
      writtenPerStep: loop.writtenPerStep,
      suspendUs: sr.suspendUs,
      coldResumeUs: sr.coldResumeUs,
    }),
  );
} else {
  console.error(`noema-side: unknown mode ${mode}`);
  process.exitCode = 2;
}
