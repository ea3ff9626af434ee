/**
 * Strict parsing of CLI flag values: a bad value is a `USAGE` error naming the flag (one line,
 * exit 2) before the command touches anything.
 */
import { NoemaError } from '../../core/errors.ts';

/** A whole decimal number in [min, max]; `1e3`, `0x10`, `' 5'` and `''` are refused, not coerced. */
export function parseIntegerFlag(value: string, flag: string, range: { min: number; max: number }): number {
  const n = Number(value);
  if (!/^-?\d+$/.test(value) || !Number.isSafeInteger(n) || n < range.min || n > range.max) {
    throw new NoemaError(
      'USAGE',
      `${flag} is invalid: "${value}" is not an integer from ${range.min} to ${range.max}`,
      {
        details: { flag, value, ...range },
      },
    );
  }
  return n;
}

/** One of `choices`, exactly. */
export function parseChoiceFlag<T extends string>(value: string, flag: string, choices: readonly T[]): T {
  if (!(choices as readonly string[]).includes(value)) {
    throw new NoemaError('USAGE', `${flag} is invalid: "${value}" is not one of ${choices.join(', ')}`, {
      details: { flag, value, choices: [...choices] },
    });
  }
  return value as T;
}

/** The setting a port-in-use error names: NOEMA_PORT only when that is where the port came from. */
export function portSetting(flags: { port?: unknown }, env: NodeJS.ProcessEnv = process.env): string {
  return flags.port === undefined && env.NOEMA_PORT !== undefined ? 'NOEMA_PORT' : '--port';
}
