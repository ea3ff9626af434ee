/** Removes credentials from a connection URL so it can be printed. */

/** Query parameters libpq and `pg` read as secrets (`?password=` works like the userinfo password). */
const SECRET_PARAMS = /^(password|sslpassword|sslkey|passfile)$/i;

/**
 * Returns `url` with the userinfo password and any secret query parameter replaced by `***`.
 * An unparsable URL is never echoed back: it may be a password pasted in the wrong place.
 */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    for (const key of [...u.searchParams.keys()]) {
      if (SECRET_PARAMS.test(key)) u.searchParams.set(key, '***');
    }
    return u.toString();
  } catch {
    return '<invalid url>';
  }
}
