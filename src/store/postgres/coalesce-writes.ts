/**
 * One socket write for the statements a connection is sent in one turn. On a pipelined connection
 * `pg` writes each statement as it is issued (a system call each, with the loopback's delivery to the
 * server in it); the statements a transaction issues before awaiting them would share a round trip
 * and still cost a write each.
 */
import type { Writable } from 'node:stream';

/**
 * Corks `socket` at the first write of a turn and uncorks it once the turn's microtasks have run
 * (`process.nextTick` queued from a microtask runs after the microtask queue drains): what is written
 * meanwhile leaves in one write, before any I/O is polled.
 */
export function coalesceWrites(socket: Writable): void {
  const write = socket.write;
  let corked = false;
  const uncork = () => {
    corked = false;
    socket.uncork();
  };
  socket.write = function (this: Writable, ...args: Parameters<Writable['write']>) {
    if (!corked) {
      corked = true;
      socket.cork();
      process.nextTick(uncork);
    }
    return write.apply(this, args);
  } as Writable['write'];
}
