/**
 * Parameter checks shared by every backend, so a value one database would refuse is the same
 * typed `INVALID_INPUT` everywhere instead of a driver error carrying the database's message.
 */
import { invalidInput } from '../core/errors.ts';
import type { SqlValue } from './store.ts';

/**
 * Throws INVALID_INPUT when a text parameter holds a NUL character. PostgreSQL text cannot
 * hold one at all; SQLite could, but then the same input would mean different things on the
 * two backends (a 404 here, a 500 there), so both refuse it before anything is sent.
 */
export function assertStorableParams(params: readonly SqlValue[]): void {
  for (let i = 0; i < params.length; i++) {
    const p = params[i];
    if (typeof p === 'string' && !isStorableText(p)) {
      throw invalidInput(
        'a text value contains a NUL character (\\u0000), which the store cannot hold',
        { parameter: i + 1 },
        'remove NUL characters from the input',
      );
    }
  }
}

/** Whether both backends can store `text` as it is (no NUL character). */
export function isStorableText(text: string): boolean {
  return !text.includes('\u0000');
}
