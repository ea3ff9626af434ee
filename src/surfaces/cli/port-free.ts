/**
 * Whether the port a command will serve on is free, asked before the command does its work (the
 * demo's turns, session and flowchart), so a second `noema demo` says so at once.
 */
import { createServer } from 'node:net';
import { NoemaError } from '../../core/errors.ts';

export async function assertPortFree(host: string, port: number, setting: string): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  const error = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
    probe.once('error', resolve);
    probe.listen(port, host, () => resolve(null));
  });
  if (!error) {
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    return;
  }
  if (error.code !== 'EADDRINUSE') return; // the real listen reports anything else, in its words
  const change =
    setting === 'NOEMA_PORT'
      ? 'set NOEMA_PORT to another port, or pass --port <n>'
      : 'pass --port <n> for another port (--port 0: any free port)';
  throw new NoemaError('CONFIG_INVALID', `${setting} is invalid: port ${port} is already in use`, {
    details: { setting, port },
    hint: `is another noema demo or serve running? ${change}`,
  });
}
