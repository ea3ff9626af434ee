/** Domain validation of task fields (lengths, control characters, statuses). */
import { invalidInput } from '../../core/errors.ts';
import { assertContent, assertTitle } from '../reasoning/docs/validate.ts';
import { TASK_STATUSES, type TaskStatus } from './store-ops.ts';

export const MAX_DESCRIPTION_CHARS = 20_000;
export const MAX_STEPS_PER_CALL = 50;

export function assertTaskTitle(v: unknown): string {
  const t = assertTitle(v);
  if (t === undefined) throw invalidInput('title is required', { field: 'title' });
  return t;
}

export function assertDescription(v: unknown): string | undefined {
  if (v === undefined || v === '') return v === '' ? '' : undefined;
  const d = assertContent(v, 'description');
  if (d.length > MAX_DESCRIPTION_CHARS) {
    throw invalidInput(`description must be at most ${MAX_DESCRIPTION_CHARS} characters`, {
      field: 'description',
    });
  }
  return d;
}

export function assertStatus(v: unknown): TaskStatus | undefined {
  if (v === undefined) return undefined;
  if (!TASK_STATUSES.includes(v as TaskStatus)) {
    throw invalidInput(`status must be one of ${TASK_STATUSES.join(', ')}`, { field: 'status', value: v });
  }
  return v as TaskStatus;
}

export function assertRevision(v: unknown, field = 'expected_revision'): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 1) {
    throw invalidInput(`${field} must be a positive integer (the revision you last read)`, { field });
  }
  return v;
}
