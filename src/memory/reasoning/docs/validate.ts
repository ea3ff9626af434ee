/** Domain validation of entry fields (beyond JSON Schema types): lengths, control characters, meta size. */
import { invalidInput } from '../../../core/errors.ts';
import { assertHumanId, hasControlChars } from '../../../core/ids.ts';

export const MAX_CONTENT_CHARS = 100_000;
export const MAX_TITLE_CHARS = 512;
export const MAX_META_CHARS = 16_384;

// Tabs and newlines are ordinary in notes; other C0/C1 controls are not.
function hasContentControl(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) || (c >= 0x7f && c <= 0x9f)) return true;
  }
  return false;
}

export function assertContent(v: unknown, field = 'content'): string {
  if (typeof v !== 'string' || v.length === 0)
    throw invalidInput(`${field} must be a non-empty string`, { field });
  if (v.length > MAX_CONTENT_CHARS) {
    throw invalidInput(`${field} must be at most ${MAX_CONTENT_CHARS} characters (got ${v.length})`, {
      field,
    });
  }
  if (hasContentControl(v))
    throw invalidInput(`${field} must not contain control characters other than tab and newline`, { field });
  if (!v.isWellFormed()) throw invalidInput(`${field} must be well-formed Unicode`, { field });
  return v;
}

export function assertTitle(v: unknown, field = 'title'): string | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v.length === 0 || v.length > MAX_TITLE_CHARS) {
    throw invalidInput(`${field} must be a string of 1 to ${MAX_TITLE_CHARS} characters`, { field });
  }
  if (hasControlChars(v) || !v.isWellFormed())
    throw invalidInput(`${field} must not contain control characters`, { field });
  return v;
}

export function assertFormat(v: unknown): string | undefined {
  if (v === undefined) return undefined;
  return assertHumanId(v, 'format', 64);
}

export function assertMeta(v: unknown, field = 'meta'): Record<string, unknown> | undefined {
  if (v === undefined) return undefined;
  if (typeof v !== 'object' || v === null || Array.isArray(v))
    throw invalidInput(`${field} must be a JSON object`, { field });
  const size = JSON.stringify(v).length;
  if (size > MAX_META_CHARS)
    throw invalidInput(`${field} must serialize to at most ${MAX_META_CHARS} characters`, { field });
  return v as Record<string, unknown>;
}
