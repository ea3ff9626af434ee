/**
 * Explains why a PostgreSQL connection could not be made, as one typed error naming the cause
 * (role, password, database, refused, host, timeout) and never the password.
 */
import { NoemaError } from '../../core/errors.ts';
import { redactUrl } from '../redact-url.ts';

/** Which part of the connection failed: the first thing an operator fixes. */
export type ConnectCause = 'role' | 'password' | 'database' | 'refused' | 'host' | 'timeout' | 'other';

const BY_SQLSTATE: Record<string, { cause: ConnectCause; says: string }> = {
  '28000': { cause: 'role', says: 'the role is not allowed to connect or does not exist' },
  '28P01': { cause: 'password', says: 'password authentication failed' },
  '3D000': { cause: 'database', says: 'the database does not exist' },
  '57P03': { cause: 'refused', says: 'the server is starting up or shutting down' },
  '53300': { cause: 'refused', says: 'the server has too many connections' },
};

const BY_ERRNO: Record<string, { cause: ConnectCause; says: string }> = {
  ECONNREFUSED: {
    cause: 'refused',
    says: 'the connection was refused (is the server running on that port?)',
  },
  ENOTFOUND: { cause: 'host', says: 'the host name does not resolve' },
  EAI_AGAIN: { cause: 'host', says: 'the host name could not be resolved' },
  EHOSTUNREACH: { cause: 'host', says: 'the host is unreachable' },
  ENETUNREACH: { cause: 'host', says: 'the network is unreachable' },
  ETIMEDOUT: { cause: 'timeout', says: 'the connection timed out' },
};

function classify(err: unknown): { cause: ConnectCause; says: string } {
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') {
    const known = BY_SQLSTATE[code] ?? BY_ERRNO[code];
    if (known) return known;
  }
  const message = (err as Error)?.message ?? '';
  if (/timeout/i.test(message)) return BY_ERRNO.ETIMEDOUT!;
  // Node reports several addresses at once as an AggregateError without a code of its own.
  const inner = (err as { errors?: unknown[] }).errors?.[0];
  if (inner) return classify(inner);
  return { cause: 'other', says: 'the connection failed' };
}

/** Every secret in `url` (userinfo and query passwords) removed from `text`. */
function scrub(text: string, url: string): string {
  let out = text;
  try {
    const u = new URL(url);
    const secrets = [u.password, u.searchParams.get('password'), u.searchParams.get('sslpassword')];
    for (const s of secrets) {
      if (!s) continue;
      out = out.split(s).join('***');
      try {
        out = out.split(decodeURIComponent(s)).join('***');
      } catch {
        // A malformed %-sequence: the raw form was scrubbed above.
      }
    }
  } catch {
    // An unparsable URL was refused earlier, by parseStoreTarget.
  }
  return out;
}

export function connectError(err: unknown, url: string, setting: string): NoemaError {
  const { cause, says } = classify(err);
  const reason = scrub((err as Error)?.message ?? String(err), url);
  // An unclassified failure (TLS, protocol) is only useful with the driver's own words.
  const why = cause === 'other' ? `${says}: ${reason}` : says;
  return new NoemaError('STORE_UNAVAILABLE', `cannot connect to PostgreSQL at ${redactUrl(url)}: ${why}`, {
    details: { setting, cause, reason },
    retryable: cause === 'refused' || cause === 'timeout' || cause === 'host',
    hint: `check ${setting} and that the server is running`,
  });
}
