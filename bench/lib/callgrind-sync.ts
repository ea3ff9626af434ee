/**
 * The window a callgrind runner counts (the engine's and the observability bench's
 * `instructions.sh`): `pause('start')` and `pause('end')` tell it where the measured part begins and
 * ends — each writes this process's id to `$NOEMA_CALLGRIND_SYNC-<name>`, then blocks in a futex (no
 * guest code runs) while the runner zeroes or dumps the counters. Without `NOEMA_CALLGRIND_SYNC` they
 * do nothing.
 */
import { writeFileSync } from 'node:fs';

export function pause(name: 'start' | 'end'): void {
  const sync = process.env.NOEMA_CALLGRIND_SYNC;
  if (!sync) return;
  writeFileSync(`${sync}-${name}`, String(process.pid));
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 3000);
}
