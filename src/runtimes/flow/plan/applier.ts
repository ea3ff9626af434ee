/**
 * The one deterministic plan applier (seed 003): applies a plan patch under a store mode.
 * `append` is add-only, `replace` overwrites from `patch.stages`, `update` mutates existing items only
 * (id-first, key fallback, ambiguous keys fail hard, missing targets are skipped with warnings).
 * Pure: plan in, plan and evidence out.
 */
import { NoemaError } from '../../../core/errors.ts';
import type { Json } from '../../../engine/index.ts';
import type { PlanStoreMode } from '../types.ts';

export interface PlanTask {
  task_id: string;
  task_key: string | null;
  title: string;
  status: string;
  description: string;
}

export interface PlanStage {
  stage_id: string;
  stage_key: string | null;
  title: string;
  status: string;
  description: string;
  tasks: PlanTask[];
}

export interface PlanDoc {
  stages: PlanStage[];
}

export interface OperationCounts {
  created: number;
  updated: number;
  replaced: number;
  skipped_missing: number;
}

export interface TouchedItem {
  kind: 'stage' | 'task';
  id: string;
  operation: 'created' | 'updated' | 'replaced';
}

export interface ApplyResult {
  plan: PlanDoc;
  next_seq: number;
  operation_counts: OperationCounts;
  touched: TouchedItem[];
  warnings: string[];
  errors: string[];
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const MUTABLE = ['title', 'status', 'description'] as const;

export function invalidPatch(message: string, details: Record<string, unknown> = {}): NoemaError {
  return new NoemaError('PLAN_PATCH_INVALID', message, {
    details,
    hint: 'a plan patch is { stages: [{ stage_id? | stage_key?, title?, status?, tasks?: [{ task_id? | task_key?, … }] }], tasks?: [...] }',
  });
}

function str(v: unknown, path: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw invalidPatch(`${path} must be a string`, { path });
  return v;
}

/** Checks the patch's shape (what an LLM-inferred patch must satisfy too). */
export function checkPatch(patch: unknown): { stages: Obj[]; tasks: Obj[] } {
  if (!isObj(patch)) throw invalidPatch('the plan patch must be a JSON object');
  const stages = patch.stages ?? [];
  const tasks = patch.tasks ?? [];
  if (!Array.isArray(stages) || !stages.every(isObj))
    throw invalidPatch('patch.stages must be an array of objects');
  if (!Array.isArray(tasks) || !tasks.every(isObj))
    throw invalidPatch('patch.tasks must be an array of objects');
  stages.forEach((s, i) => {
    for (const k of ['stage_id', 'stage_key', ...MUTABLE]) str(s[k], `/stages/${i}/${k}`);
    if (s.tasks !== undefined && (!Array.isArray(s.tasks) || !s.tasks.every(isObj)))
      throw invalidPatch(`/stages/${i}/tasks must be an array of objects`);
    ((s.tasks as Obj[] | undefined) ?? []).forEach((t, j) => {
      for (const k of ['task_id', 'task_key', ...MUTABLE]) str(t[k], `/stages/${i}/tasks/${j}/${k}`);
    });
  });
  tasks.forEach((t, j) => {
    for (const k of ['task_id', 'task_key', 'stage_id', 'stage_key', ...MUTABLE])
      str(t[k], `/tasks/${j}/${k}`);
  });
  if (stages.length === 0 && tasks.length === 0) throw invalidPatch('the plan patch has no stages or tasks');
  return { stages: stages as Obj[], tasks: tasks as Obj[] };
}

/** id-first, then key; a key naming several items is a hard failure. */
function match<T>(
  items: T[],
  id: unknown,
  key: unknown,
  idOf: (t: T) => string,
  keyOf: (t: T) => string | null,
  what: string,
) {
  if (typeof id === 'string') return items.find((t) => idOf(t) === id) ?? null;
  if (typeof key === 'string') {
    const hits = items.filter((t) => keyOf(t) === key);
    if (hits.length > 1)
      throw new NoemaError('PLAN_AMBIGUOUS_MATCH', `${what} key "${key}" matches ${hits.length} items`, {
        details: { key, matches: hits.map(idOf) },
        hint: `target the ${what} by its id`,
      });
    return hits[0] ?? null;
  }
  return null;
}

const stageMatch = (stages: PlanStage[], s: Obj) =>
  match(
    stages,
    s.stage_id,
    s.stage_key,
    (x) => x.stage_id,
    (x) => x.stage_key,
    'stage',
  );
const taskMatch = (tasks: PlanTask[], t: Obj) =>
  match(
    tasks,
    t.task_id,
    t.task_key,
    (x) => x.task_id,
    (x) => x.task_key,
    'task',
  );

export function applyPlanPatch(
  current: PlanDoc,
  patch: unknown,
  storeMode: PlanStoreMode,
  nextSeq: number,
): ApplyResult {
  const p = checkPatch(patch);
  const plan: PlanDoc = structuredClone(current);
  let seq = nextSeq;
  const counts: OperationCounts = { created: 0, updated: 0, replaced: 0, skipped_missing: 0 };
  const touched: TouchedItem[] = [];
  const warnings: string[] = [];
  const newTask = (t: Obj): PlanTask => ({
    task_id: (t.task_id as string | undefined) ?? `task-${seq++}`,
    task_key: (t.task_key as string | undefined) ?? null,
    title: (t.title as string | undefined) ?? '',
    status: (t.status as string | undefined) ?? 'pending',
    description: (t.description as string | undefined) ?? '',
  });
  const newStage = (s: Obj): PlanStage => ({
    stage_id: (s.stage_id as string | undefined) ?? `stage-${seq++}`,
    stage_key: (s.stage_key as string | undefined) ?? null,
    title: (s.title as string | undefined) ?? '',
    status: (s.status as string | undefined) ?? 'pending',
    description: (s.description as string | undefined) ?? '',
    tasks: ((s.tasks as Obj[] | undefined) ?? []).map(newTask),
  });
  const mutate = (target: PlanStage | PlanTask, from: Obj): boolean => {
    let changed = false;
    for (const k of MUTABLE)
      if (typeof from[k] === 'string' && target[k] !== from[k]) {
        target[k] = from[k] as string;
        changed = true;
      }
    return changed;
  };

  if (storeMode === 'replace') {
    plan.stages = p.stages.map(newStage);
    for (const s of plan.stages) {
      counts.replaced++;
      touched.push({ kind: 'stage', id: s.stage_id, operation: 'replaced' });
      for (const t of s.tasks) {
        counts.replaced++;
        touched.push({ kind: 'task', id: t.task_id, operation: 'replaced' });
      }
    }
    if (p.tasks.length > 0)
      warnings.push('replace ignores top-level patch.tasks; put tasks inside patch.stages');
  } else if (storeMode === 'append') {
    for (const s of p.stages) {
      const hit = stageMatch(plan.stages, s);
      if (!hit) {
        const stage = newStage(s);
        plan.stages.push(stage);
        counts.created += 1 + stage.tasks.length;
        touched.push({ kind: 'stage', id: stage.stage_id, operation: 'created' });
        for (const t of stage.tasks) touched.push({ kind: 'task', id: t.task_id, operation: 'created' });
        continue;
      }
      warnings.push(`stage ${hit.stage_id} exists; append does not mutate it`);
      for (const t of (s.tasks as Obj[] | undefined) ?? []) {
        const tHit = taskMatch(hit.tasks, t);
        if (tHit) {
          warnings.push(`task ${tHit.task_id} exists; append does not mutate it`);
          continue;
        }
        const task = newTask(t);
        hit.tasks.push(task);
        counts.created++;
        touched.push({ kind: 'task', id: task.task_id, operation: 'created' });
      }
    }
    if (p.tasks.length > 0)
      warnings.push('append ignores top-level patch.tasks; put new tasks inside patch.stages');
  } else {
    for (const [i, s] of p.stages.entries()) {
      const hit = stageMatch(plan.stages, s);
      if (!hit) {
        counts.skipped_missing++;
        warnings.push(`stage ${String(s.stage_id ?? s.stage_key ?? `#${i}`)} not found; skipped`);
        continue;
      }
      if (mutate(hit, s)) {
        counts.updated++;
        touched.push({ kind: 'stage', id: hit.stage_id, operation: 'updated' });
      }
      for (const [j, t] of ((s.tasks as Obj[] | undefined) ?? []).entries()) {
        const tHit = taskMatch(hit.tasks, t);
        if (!tHit) {
          counts.skipped_missing++;
          warnings.push(
            `task ${String(t.task_id ?? t.task_key ?? `#${j}`)} not found in stage ${hit.stage_id}; skipped`,
          );
          continue;
        }
        if (mutate(tHit, t)) {
          counts.updated++;
          touched.push({ kind: 'task', id: tHit.task_id, operation: 'updated' });
        }
      }
    }
    for (const [j, t] of p.tasks.entries()) {
      const scope =
        t.stage_id !== undefined || t.stage_key !== undefined
          ? [stageMatch(plan.stages, t)].filter((x) => x !== null)
          : plan.stages;
      const tHit = taskMatch(
        scope.flatMap((s) => s.tasks),
        t,
      );
      if (!tHit) {
        counts.skipped_missing++;
        warnings.push(`task ${String(t.task_id ?? t.task_key ?? `#${j}`)} not found; skipped`);
        continue;
      }
      if (mutate(tHit, t)) {
        counts.updated++;
        touched.push({ kind: 'task', id: tHit.task_id, operation: 'updated' });
      }
    }
  }
  return { plan, next_seq: seq, operation_counts: counts, touched, warnings, errors: [] };
}

export const planJson = (p: PlanDoc): Json => p as unknown as Json;
