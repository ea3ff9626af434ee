/** Socket.IO on the HTTP server (filled in with the event streams). */
import type { Server } from 'node:http';
import type { Engine } from '../../../engine/index.ts';
import type { SessionKeeper } from '../auth/sessions.ts';

export interface SocketIoOptions {
  engine: Engine;
  token: string;
  sessions: SessionKeeper;
}

export function attachSocketIo(_server: Server, _options: SocketIoOptions): { close(): Promise<void> } {
  return { close: async () => {} };
}
