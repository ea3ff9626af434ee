/**
 * The two template languages of a workflow: ambient `request_template`s, whose `{ "$from":
 * "<JSON pointer>" }` leaves read the turn context (a missing path fails loudly), and prompt
 * templates, whose `{{name}}` variables are a fixed, known set.
 */
import { NoemaError } from '../../core/errors.ts';
import { readPointer, writePointer } from '../../core/json-pointer.ts';

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

/** Every `$from` pointer in a template, with its path in the template. */
export function fromPointers(template: unknown, path = ''): Array<{ path: string; pointer: unknown }> {
  if (Array.isArray(template)) return template.flatMap((v, i) => fromPointers(v, `${path}/${i}`));
  if (template === null || typeof template !== 'object') return [];
  const obj = template as Record<string, unknown>;
  if (Object.hasOwn(obj, '$from')) return [{ path, pointer: obj.$from }];
  return Object.entries(obj).flatMap(([k, v]) => fromPointers(v, `${path}/${k}`));
}

/** Replaces every `{ "$from": pointer }` with the value there; a missing path is AMBIENT_TEMPLATE_PATH_MISSING. */
export function renderRequest(template: unknown, context: unknown, where: string): unknown {
  if (Array.isArray(template)) return template.map((v) => renderRequest(v, context, where));
  if (template === null || typeof template !== 'object') return template;
  const obj = template as Record<string, unknown>;
  if (Object.hasOwn(obj, '$from')) {
    const pointer = obj.$from;
    const r = typeof pointer === 'string' ? readPointer(context, pointer) : { ok: false as const };
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

/**
 * Sets `value` at `pointer` inside `target`, creating objects on the way (own properties only; a
 * pointer with a prototype token is refused — workflow validation refuses it first).
 */
export function injectAt(target: Record<string, unknown>, pointer: string, value: unknown): void {
  writePointer(target, pointer, value);
}
