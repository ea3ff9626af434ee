// SHA-256 content addresses: hex digests of raw data and of canonical JSON values.

import { hash } from 'node:crypto';
import { canonicalJson } from './canonical-json.ts';

/** Lowercase hex SHA-256 of `data` (strings are hashed as UTF-8). */
export function sha256Hex(data: string | Uint8Array): string {
  return hash('sha256', data, 'hex');
}

/** The content address of a JSON value: sha256Hex of its RFC 8785 canonical form. Throws NOT_CANONICALIZABLE. */
export function contentHash(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** True when `s` is a lowercase 64-digit hex SHA-256 digest, as produced by sha256Hex. */
export function isSha256Hex(s: unknown): s is string {
  return typeof s === 'string' && SHA256_HEX.test(s);
}
