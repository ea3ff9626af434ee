/** JSON Schema fragments shared by tool input schemas, so every tool describes common fields alike. */

export const workspace = {
  type: 'string',
  minLength: 1,
  maxLength: 128,
  description: 'Stable workspace id (your project). Required; initialize it once with branchmind_init.',
} as const;

export const branchName = (description: string) =>
  ({ type: 'string', minLength: 1, maxLength: 128, description }) as const;

export const target = {
  type: 'string',
  pattern: '^(PLAN|TASK)-[0-9]{3,9}$',
  description:
    'A plan or task id ("PLAN-001", "TASK-001") from tasks_create; resolves to its canonical branch and docs.',
} as const;

export const doc = (description: string) =>
  ({ type: 'string', minLength: 1, maxLength: 128, description }) as const;

export const cursor = {
  type: ['integer', 'null'],
  minimum: 1,
  description:
    'Tail pagination: return entries with seq < cursor. Omit (or null) for the newest; pass next_cursor to continue.',
} as const;

export const limit = (def: number, max: number, what = 'entries') =>
  ({
    type: 'integer',
    minimum: 1,
    maximum: max,
    description: `Most ${what} to return (default ${def}, at most ${max}).`,
  }) as const;

export const maxChars = {
  type: 'integer',
  minimum: 1,
  maximum: 1_000_000,
  description:
    'Budget in characters of the JSON reply (default 20000). Oldest items are dropped to fit and truncated=true; too small for even an empty reply is BUDGET_TOO_SMALL.',
} as const;

export function objectSchema(
  properties: Record<string, unknown>,
  required: string[],
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { type: 'object', properties, required, additionalProperties: false, ...extra };
}
