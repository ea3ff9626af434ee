/** The `http_json` interface: the JSON Schema of its definition and its resolved endpoint. */
import { notConfigured, SourceFailure } from '../failure.ts';

export interface HttpJsonInterface {
  name: 'http_json';
  method: 'POST' | 'PUT' | 'PATCH' | 'GET';
  url_env: string;
  path: string;
  timeout_ms: number;
  /** Must be `<url_env>_TOKEN`: the only token variable honoured for this URL. */
  bearer_token_env?: string;
}

const ENV_NAME = { type: 'string', pattern: '^[A-Z][A-Z0-9_]{0,127}$' };

export const httpJsonInterfaceSchema = {
  type: 'object',
  required: ['name', 'method', 'url_env', 'path', 'timeout_ms'],
  additionalProperties: false,
  properties: {
    name: { const: 'http_json' },
    method: { enum: ['POST', 'PUT', 'PATCH', 'GET'] },
    url_env: ENV_NAME,
    path: { type: 'string', pattern: '^/[^\\s]*$', maxLength: 2000 },
    timeout_ms: { type: 'integer', minimum: 1, maximum: 600000 },
    bearer_token_env: ENV_NAME,
  },
} as const;

/** The URL to call: the operator's base URL (from `url_env`) joined with the definition's path. */
export function resolveUrl(iface: HttpJsonInterface, env: Readonly<Record<string, string | undefined>>): URL {
  const base = env[iface.url_env];
  if (!base) throw notConfigured(iface.url_env, `http_json source base URL (${iface.url_env})`);
  let url: URL;
  try {
    url = new URL(base.replace(/\/+$/, '') + iface.path);
  } catch {
    throw new SourceFailure('not_configured', `${iface.url_env} is not a valid URL`, {
      details: { variable: iface.url_env },
      hint: `set ${iface.url_env} to an http:// or https:// base URL`,
    });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new SourceFailure('not_configured', `${iface.url_env} must be an http:// or https:// URL`, {
      details: { variable: iface.url_env },
    });
  }
  return url;
}

/**
 * The bearer token, if the definition asks for one. A stored document must not choose which
 * secret goes to its URL, so the only variable honoured is `<url_env>_TOKEN`.
 */
export function resolveBearerToken(
  iface: HttpJsonInterface,
  env: Readonly<Record<string, string | undefined>>,
): string | undefined {
  if (!iface.bearer_token_env) return undefined;
  const expected = `${iface.url_env}_TOKEN`;
  if (iface.bearer_token_env !== expected) {
    throw new SourceFailure(
      'not_configured',
      `bearer_token_env must be ${expected} (the url_env followed by _TOKEN), not ${iface.bearer_token_env}`,
      {
        details: { variable: iface.bearer_token_env, expected },
        hint: `name the token variable ${expected} in the source definition and set it in the environment`,
      },
    );
  }
  return env[expected];
}

/** The URL as recorded: without credentials in userinfo. */
export function printableUrl(url: URL): string {
  const u = new URL(url);
  u.username = '';
  u.password = '';
  return u.toString();
}
