import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { applyPlanPatch, type PlanDoc } from './applier.ts';

const base = (): PlanDoc =>
  applyPlanPatch(
    { stages: [] },
    {
      stages: [
        {
          stage_key: 'build',
          title: 'Build',
          tasks: [
            { task_key: 'wire', title: 'Wire' },
            { task_key: 'test', title: 'Test' },
          ],
        },
        { stage_key: 'ship', title: 'Ship', tasks: [{ task_key: 'test', title: 'Smoke test' }] },
      ],
    },
    'append',
    1,
  ).plan;

describe('plan applier', () => {
  test('append creates new items with ids and leaves matched ones untouched, with warnings', () => {
    const plan = base();
    assert.deepEqual(
      plan.stages.map((s) => s.stage_id),
      ['stage-1', 'stage-4'],
    );
    const r = applyPlanPatch(
      plan,
      {
        stages: [
          {
            stage_key: 'build',
            title: 'RENAMED',
            tasks: [
              { task_key: 'wire', title: 'X' },
              { task_key: 'docs', title: 'Docs' },
            ],
          },
        ],
      },
      'append',
      6,
    );
    assert.equal(r.plan.stages[0]!.title, 'Build', 'matched stage not mutated');
    assert.equal(r.plan.stages[0]!.tasks[0]!.title, 'Wire', 'matched task not mutated');
    assert.deepEqual(
      r.plan.stages[0]!.tasks.map((t) => t.task_key),
      ['wire', 'test', 'docs'],
    );
    assert.deepEqual(r.operation_counts, { created: 1, updated: 0, replaced: 0, skipped_missing: 0 });
    assert.equal(r.warnings.length, 2);
    assert.deepEqual(r.touched, [{ kind: 'task', id: 'task-6', operation: 'created' }]);
  });

  test('replace overwrites the structure from patch.stages', () => {
    const r = applyPlanPatch(
      base(),
      { stages: [{ stage_key: 'only', tasks: [{ title: 'one' }] }] },
      'replace',
      10,
    );
    assert.deepEqual(
      r.plan.stages.map((s) => s.stage_key),
      ['only'],
    );
    assert.deepEqual(r.operation_counts, { created: 0, updated: 0, replaced: 2, skipped_missing: 0 });
  });

  test('update targets ids first, then keys; missing targets are skipped with warnings', () => {
    const plan = base();
    const r = applyPlanPatch(
      plan,
      {
        stages: [
          // id wins over a key that names another stage
          { stage_id: 'stage-4', stage_key: 'build', status: 'done' },
          {
            stage_key: 'build',
            tasks: [
              { task_key: 'wire', status: 'done' },
              { task_key: 'nope', status: 'done' },
            ],
          },
          { stage_id: 'stage-99', status: 'done' },
        ],
        tasks: [
          { task_id: 'task-3', title: 'Test well' },
          { task_key: 'ghost', status: 'x' },
        ],
      },
      'update',
      10,
    );
    assert.equal(r.plan.stages[1]!.status, 'done');
    assert.equal(r.plan.stages[0]!.status, 'pending');
    assert.equal(r.plan.stages[0]!.tasks[0]!.status, 'done');
    assert.equal(r.plan.stages[0]!.tasks[1]!.title, 'Test well');
    assert.deepEqual(r.operation_counts, { created: 0, updated: 3, replaced: 0, skipped_missing: 3 });
    assert.equal(r.warnings.length, 3);
    assert.equal(r.plan.stages.length, 2, 'update never creates');
  });

  test('an ambiguous key match is a hard failure', () => {
    assert.throws(
      () => applyPlanPatch(base(), { tasks: [{ task_key: 'test', status: 'done' }] }, 'update', 10),
      {
        code: 'PLAN_AMBIGUOUS_MATCH',
      },
    );
  });

  test('a malformed patch is refused', () => {
    assert.throws(() => applyPlanPatch(base(), { stages: 'no' }, 'append', 1), {
      code: 'PLAN_PATCH_INVALID',
    });
    assert.throws(() => applyPlanPatch(base(), [], 'append', 1), { code: 'PLAN_PATCH_INVALID' });
  });
});
