/**
 * JSON pointers from workflow documents never reach Object.prototype: `inject_as` is checked in
 * full at validation, and injection refuses prototype tokens even if a document got past it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isNoemaError } from '../../src/core/errors.ts';
import { jsonPointer } from '../../src/runtimes/flow/run/context.ts';
import { injectAt } from '../../src/runtimes/world/templates.ts';
import { checkWorkflow } from '../../src/runtimes/world/workflow-check.ts';

const ambient = (inject_as: string) => ({
  version: 1,
  execution: 'per_subject_ordered',
  ambient_sources: [
    {
      id: 'w',
      source_ref: { hash: 'a'.repeat(64) },
      run: 'once_per_turn',
      scope: 'world',
      visible_to: 'all_subjects',
      request_template: {},
      inject_as,
    },
  ],
  nodes: [],
});

test('the workflow check refuses inject_as with a prototype token anywhere in it', () => {
  for (const p of ['/ambient/__proto__/polluted', '/ambient/x/constructor/prototype', '/ambient/prototype']) {
    const problems = checkWorkflow(ambient(p), '', new Set()).filter((x) => x.path.endsWith('/inject_as'));
    assert.equal(problems.length, 1, p);
    assert.equal(problems[0]!.code, 'INJECT_AS_INVALID');
  }
  const ok = checkWorkflow(ambient('/ambient/park/weather'), '', new Set());
  assert.equal(ok.filter((x) => x.path.endsWith('/inject_as')).length, 0);
});

test('injecting at /ambient/__proto__/polluted does not pollute Object.prototype', () => {
  const root: Record<string, unknown> = {};
  assert.throws(
    () => injectAt(root, '/ambient/__proto__/polluted', 'yes'),
    (e) => isNoemaError(e) && e.code === 'INVALID_INPUT',
  );
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  delete (Object.prototype as Record<string, unknown>).polluted;
});

test('flowchart pointers read own properties only', () => {
  const doc = { input: { text: 'hi' }, upstream: {} };
  assert.equal(jsonPointer(doc, '/input/text'), 'hi');
  assert.equal(jsonPointer(doc, '/input/constructor'), undefined);
  assert.equal(jsonPointer(doc, '/input/__proto__'), undefined);
  assert.equal(jsonPointer(doc, 'input'), undefined);
});
