/** A port that cannot be listened on is configuration: one CONFIG_INVALID line naming the setting. */
import { NoemaError } from '../core/errors.ts';

export function listenError(err: unknown, port: number, setting: string): unknown {
  const code = (err as { code?: string } | null)?.code;
  if (code === 'EADDRINUSE') {
    return new NoemaError('CONFIG_INVALID', `${setting} is invalid: port ${port} is already in use`, {
      details: { setting, port },
      hint: `choose another port with ${setting}`,
    });
  }
  if (code === 'EACCES' || code === 'EPERM') {
    return new NoemaError('CONFIG_INVALID', `${setting} is invalid: port ${port} is not permitted`, {
      details: { setting, port },
      hint: `choose a port above 1023 with ${setting}`,
    });
  }
  return err;
}
