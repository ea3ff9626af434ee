/** JSON Schema fragments shared by the world catalog's tools. */

export const hash = {
  type: 'string',
  pattern: '^[0-9a-f]{64}$',
  description: 'A sha256 content address (64 lowercase hex), as returned by a put_* tool.',
} as const;

export const hashRef = (description: string) =>
  ({
    type: 'object',
    required: ['hash'],
    additionalProperties: false,
    properties: { hash },
    description,
  }) as const;

export const worldSlug = {
  type: 'string',
  pattern: '^[a-z0-9][a-z0-9_.-]{0,127}$',
  description: 'The world\'s slug (lowercase letters, digits, "_", ".", "-"), e.g. "park".',
} as const;

export const turn = (description: string) =>
  ({ type: 'integer', minimum: 0, maximum: 1_000_000_000, description }) as const;

export const doc = (description: string) => ({ type: 'object', description }) as const;

export const limit = (def: number, max: number) =>
  ({
    type: 'integer',
    minimum: 1,
    maximum: max,
    description: `Most items to return (default ${def}, at most ${max}).`,
  }) as const;

export function objectSchema(properties: Record<string, unknown>, required: string[] = []) {
  return { type: 'object', additionalProperties: false, properties, required };
}
