import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { NoemaError } from '../../../core/errors.ts';
import { parseGraphOps } from './ops.ts';

function rejects(ops: unknown, pattern: RegExp): void {
  assert.throws(
    () => parseGraphOps(ops),
    (e: unknown) => e instanceof NoemaError && e.code === 'INVALID_INPUT' && pattern.test(e.message),
  );
}

describe('graph op validation', () => {
  test('tags are lowercased, deduplicated and sorted', () => {
    const [op] = parseGraphOps([
      { op: 'node_upsert', id: 'h1', type: 'hypothesis', tags: ['Zeta', 'alpha', 'ZETA', ' beta '] },
    ]);
    assert.deepEqual(op, {
      kind: 'node',
      content: { id: 'h1', type: 'hypothesis', tags: ['alpha', 'beta', 'zeta'], deleted: false },
    });
  });

  test('node_delete becomes a tombstone and edge_delete a deleted edge', () => {
    const ops = parseGraphOps([
      { op: 'node_delete', id: 'a' },
      { op: 'edge_delete', from: 'a', rel: 'supports', to: 'b' },
    ]);
    assert.equal(ops[0]!.content.deleted, true);
    assert.deepEqual(ops[1], {
      kind: 'edge',
      content: { from: 'a', rel: 'supports', to: 'b', deleted: true },
    });
  });

  test('control characters in ids, types and rels are rejected', () => {
    rejects([{ op: 'node_upsert', id: 'a\u0000b', type: 't' }], /control/);
    rejects([{ op: 'node_upsert', id: 'a', type: 't\u0007' }], /control/);
    rejects([{ op: 'edge_upsert', from: 'a', rel: 'r\n', to: 'b' }], /control/);
  });

  test('"|" is reserved in type, rel and tags', () => {
    rejects([{ op: 'node_upsert', id: 'a', type: 'x|y' }], /reserved/);
    rejects([{ op: 'edge_upsert', from: 'a', rel: 'x|y', to: 'b' }], /reserved/);
    rejects([{ op: 'node_upsert', id: 'a', type: 't', tags: ['a|b'] }], /reserved/);
  });

  test('task: and step: id prefixes are reserved', () => {
    rejects([{ op: 'node_upsert', id: 'task:TASK-001', type: 't' }], /reserved prefix "task:"/);
    rejects([{ op: 'edge_upsert', from: 'a', rel: 'r', to: 'step:1' }], /reserved prefix "step:"/);
  });

  test('lengths are bounded and ids must be non-empty', () => {
    rejects([{ op: 'node_upsert', id: 'x'.repeat(257), type: 't' }], /at most 256/);
    rejects([{ op: 'node_upsert', id: 'a', type: 'x'.repeat(65) }], /at most 64/);
    rejects([{ op: 'node_upsert', id: '', type: 't' }], /empty/);
    rejects([{ op: 'node_upsert', id: 'a', type: 't', text: 'x'.repeat(20_001) }], /at most 20000/);
  });

  test('unknown ops and unknown fields are rejected', () => {
    rejects([{ op: 'node_rename', id: 'a' }], /op must be/);
    rejects([{ op: 'node_delete', id: 'a', type: 't' }], /unknown field/);
    rejects([], /empty/);
    rejects('nope', /array/);
  });

  test('one bad op rejects the batch and every issue is listed', () => {
    try {
      parseGraphOps([
        { op: 'node_upsert', id: 'ok', type: 't' },
        { op: 'node_upsert', id: '', type: 't' },
        { op: 'edge_upsert', from: 'a', rel: 'x|y', to: 'b' },
      ]);
      assert.fail('expected a throw');
    } catch (e) {
      assert.ok(e instanceof NoemaError);
      const errors = e.details.errors as Array<{ path: string }>;
      assert.deepEqual(
        errors.map((x) => x.path),
        ['ops[1].id', 'ops[2].rel'],
      );
    }
  });
});
