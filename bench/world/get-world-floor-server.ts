/**
 * The world bench's HTTP floor, a process of its own that imports nothing of Noema: `node
 * get-world-floor-server.ts <bytes>` answers every GET with a JSON body of exactly `bytes` bytes,
 * built once (only its head, which names the turn the path asks for, is made per request), over
 * bare `node:http` — what moving a `get_world` answer of that size from a server to the bench's
 * client costs on this machine, with nothing read, spliced or routed. Prints `serving on <url>`.
 */
import { createServer } from 'node:http';

const bytes = Number(process.argv[2]);
if (!Number.isInteger(bytes) || bytes < 64)
  throw new Error(`bytes: expected an integer ≥ 64, got ${process.argv[2]}`);
// `{"turn":N,"pad":"aaa…"}`: the head is at most 32 bytes, the padding fills the rest.
const HEAD = 32;
const tail = Buffer.alloc(bytes - HEAD, 0x61);
tail.write('"}', tail.length - 2);

const server = createServer((req, res) => {
  const turn = Number(/\/turns\/(\d+)$/.exec(req.url ?? '')?.[1] ?? 0);
  const head = `{"turn":${turn},"pad":"`.padEnd(HEAD, 'a');
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(bytes) });
  res.write(head);
  res.end(tail);
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address && typeof address === 'object')
    process.stdout.write(`serving on http://127.0.0.1:${address.port}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
