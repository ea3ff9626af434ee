/** A test file's own HTTP server on 127.0.0.1: started before its tests, its connections cut after. */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before } from 'node:test';

/** Serves `server` on a free port for the file's tests; the returned function gives its base URL. */
export function serveDuringTests(server: Server): () => string {
  let base = '';
  before(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => {
    server.closeAllConnections();
    server.close();
  });
  return () => base;
}
