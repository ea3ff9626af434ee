/**
 * `node bench/lib/latency-proxy.ts <listen port> <target port> <delay ms>`: a TCP proxy on 127.0.0.1
 * that holds every chunk `delay` milliseconds (Node's timers: 1 ms at the least) in each direction,
 * in order, to measure the benches against a PostgreSQL server as far away as one on another host
 * (point NOEMA_TEST_POSTGRES_URL at the listen port). Runs in a process of its own, until killed.
 */
import { createConnection, createServer, type Socket } from 'node:net';

const [listen, target, delay] = process.argv.slice(2).map(Number);
if (!listen || !target || !(delay! >= 0)) {
  console.error('usage: node bench/lib/latency-proxy.ts <listen port> <target port> <delay ms>');
  process.exit(2);
}

/** Forwards `from`'s data to `to`, each chunk `delay` ms after it arrived, in arrival order. */
function delayed(from: Socket, to: Socket): void {
  const queue: Array<{ at: number; chunk: Buffer }> = [];
  let scheduled = false;
  const flush = () => {
    const now = performance.now();
    while (queue.length > 0 && queue[0]!.at <= now) to.write(queue.shift()!.chunk);
    scheduled = queue.length > 0;
    if (scheduled) setTimeout(flush, Math.max(0, queue[0]!.at - now));
  };
  from.on('data', (chunk: Buffer) => {
    queue.push({ at: performance.now() + delay!, chunk });
    if (!scheduled) {
      scheduled = true;
      setTimeout(flush, delay!);
    }
  });
  from.on('end', () => to.end());
  from.on('error', () => to.destroy());
}

createServer((client) => {
  client.setNoDelay(true);
  const server = createConnection({ host: '127.0.0.1', port: target! });
  server.setNoDelay(true);
  delayed(client, server);
  delayed(server, client);
  server.on('close', () => client.destroy());
  client.on('close', () => server.destroy());
}).listen(listen, '127.0.0.1', () =>
  console.log(`latency proxy 127.0.0.1:${listen} -> ${target}, ${delay} ms each way`),
);
