/**
 * Hints in the CLI's words. Errors raised in the runtimes carry hints for API users (`create it
 * with create_world { … }`); on the command line, known codes name the command to type next.
 */
import type { NoemaError } from '../../core/errors.ts';

type Details = Record<string, unknown>;
const str = (v: unknown, fallback: string) => (typeof v === 'string' && v !== '' ? v : fallback);

const HINTS: Partial<Record<string, (d: Details) => string>> = {
  UNKNOWN_WORLD: (d) =>
    `create it with: npx noema world create ${str(d.world_slug, '<slug>')} --scenario <dir>`,
  WORLD_EXISTS: (d) =>
    `pick another slug, or run it with: npx noema world run ${str(d.world_slug, '<slug>')}`,
  UNKNOWN_TURN: (d) => `see its turns with: npx noema world log ${str(d.world_slug, '<slug>')}`,
  UNKNOWN_SCENARIO: () =>
    'apply a bundle with: npx noema world apply <bundle-dir> (or pass the bundle directory to --scenario)',
  UNKNOWN_AGENT: () => 'store one with: npx noema agent put <agent.json>',
  UNKNOWN_FLOWCHART: () =>
    'import one with: npx noema flow import <flowchart.json>, or run a file: npx noema flow run <flowchart.json>',
  FLOWCHART_INVALID: () =>
    'fix the graph; npx noema flow import <flowchart.json> prints its validation errors',
};

/** The CLI's hint for `err`, or undefined to keep the error's own. */
export function cliHint(err: NoemaError): string | undefined {
  return HINTS[err.code]?.(err.details);
}
