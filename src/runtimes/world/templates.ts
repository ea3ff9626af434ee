/**
 * The two template languages of a workflow: ambient `request_template`s, whose `{ "$from":
 * "<JSON pointer>" }` leaves read the turn context (a missing path fails loudly), and prompt
 * templates, whose `{{name}}` variables are a fixed, known set.
 */
import { NoemaError } from '../../core/errors.ts';

/** Variables prompt templates may use; assembly refuses any other. */
export const PROMPT_VARIABLES = [
  'world.projection',
  'world.slug',
  'world.attempted_turn',
  'world.simulation_time',
  'subject.rendered',
  'subject.entity_id',
  'ambient.visible',
  'tools.available',
] as const;

/** Pointers `$from` may read: under /world for every ambient source, under /subject only before a subject. */
export const FROM_ROOTS = {
  world: ['slug', 'attempted_turn', 'simulation_time', 'scenario_hash'],
  subject: ['entity_id', 'kind', 'environment_label', 'state'],
} as const;

const VARIABLE = /\{\{\s*([^{}]*?)\s*\}\}/g;

export function promptVariables(template: string): string[] {
  return [...template.matchAll(VARIABLE)].map((m) => m[1] ?? '');
}

/** Fills `{{name}}` variables with `value(name)` ('' for a name it does not know). */
export function renderPrompt(template: string, value: (name: string) => string): string {
  return template.replace(VARIABLE, (_, name: string) => value(name.trim()));
}

function unescapeToken(token: string): string {
  // Most tokens have no escape: skip the two scans for them.
  if (!token.includes('~')) return token;
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}

export function parsePointer(pointer: string): string[] | null {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) return null;
  return pointer.slice(1).split('/').map(unescapeToken);
}

/** Every `$from` pointer in a template, with its path in the template. */
export function fromPointers(template: unknown, path = ''): Array<{ path: string; pointer: unknown }> {
  if (Array.isArray(template)) return template.flatMap((v, i) => fromPointers(v, `${path}/${i}`));
  if (template === null || typeof template !== 'object') return [];
  const obj = template as Record<string, unknown>;
  if (Object.hasOwn(obj, '$from')) return [{ path, pointer: obj.$from }];
  return Object.entries(obj).flatMap(([k, v]) => fromPointers(v, `${path}/${k}`));
}

function read(context: unknown, pointer: string): { ok: true; value: unknown } | { ok: false } {
  const tokens = parsePointer(pointer);
  if (!tokens) return { ok: false };
  let cur: unknown = context;
  for (const t of tokens) {
    if (cur === null || typeof cur !== 'object' || !Object.hasOwn(cur, t)) return { ok: false };
    cur = (cur as Record<string, unknown>)[t];
  }
  return cur === undefined ? { ok: false } : { ok: true, value: cur };
}

/** Replaces every `{ "$from": pointer }` with the value there; a missing path is AMBIENT_TEMPLATE_PATH_MISSING. */
export function renderRequest(template: unknown, context: unknown, where: string): unknown {
  if (Array.isArray(template)) return template.map((v) => renderRequest(v, context, where));
  if (template === null || typeof template !== 'object') return template;
  const obj = template as Record<string, unknown>;
  if (Object.hasOwn(obj, '$from')) {
    const pointer = obj.$from;
    const r = typeof pointer === 'string' ? read(context, pointer) : { ok: false as const };
    if (!r.ok) {
      throw new NoemaError(
        'AMBIENT_TEMPLATE_PATH_MISSING',
        `${where}: $from "${String(pointer)}" names no value`,
        {
          details: { pointer, ambient_source: where },
          hint: `$from reads /world/{${FROM_ROOTS.world.join(',')}} and, before a subject, /subject/{${FROM_ROOTS.subject.join(',')}}`,
        },
      );
    }
    return r.value;
  }
  return Object.fromEntries(Object.entries(obj).map(([k, v]) => [k, renderRequest(v, context, where)]));
}

/** Sets `value` at `pointer` inside `target`, creating objects on the way. */
export function injectAt(target: Record<string, unknown>, pointer: string, value: unknown): void {
  const tokens = parsePointer(pointer) ?? [];
  let cur = target;
  tokens.forEach((t, i) => {
    if (i === tokens.length - 1) cur[t] = value;
    else {
      const next = cur[t];
      if (next === null || typeof next !== 'object' || Array.isArray(next)) cur[t] = {};
      cur = cur[t] as Record<string, unknown>;
    }
  });
}
