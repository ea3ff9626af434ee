/** A pass-through HTTP proxy for tests that notes the `traceparent` header of each request it forwards. */
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A pass-through HTTP proxy to `target` that notes each request's `traceparent` header. */
export async function recordingProxy(target: string) {
  const seen: Array<string | undefined> = [];
  const to = new URL(target);
  const server = createServer((req, res) => {
    seen.push(req.headers.traceparent as string | undefined);
    const out = request(
      { host: to.hostname, port: to.port, path: req.url, method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}${to.pathname}`,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
