import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { decideMerge } from './merge-decision.ts';
import type { NodeContent } from './types.ts';

const node = (title: string, deleted = false): NodeContent => ({
  id: 'n',
  type: 't',
  title,
  tags: [],
  deleted,
});

describe('3-way merge decision', () => {
  test('equal states are skipped (re-running a merge is a no-op)', () => {
    assert.equal(
      decideMerge({ base: node('a'), theirs: node('b'), ours: node('b'), oursMergedFromSameBranch: false })
        .action,
      'skip',
    );
  });

  test('theirs applies when into did not change the key since the base', () => {
    assert.equal(
      decideMerge({ base: node('a'), theirs: node('b'), ours: node('a'), oursMergedFromSameBranch: false })
        .action,
      'apply',
    );
    assert.equal(
      decideMerge({ base: null, theirs: node('b'), ours: null, oursMergedFromSameBranch: false }).action,
      'apply',
    );
  });

  test('both sides changing the key differently is a conflict', () => {
    const d = decideMerge({
      base: node('a'),
      theirs: node('b'),
      ours: node('c'),
      oursMergedFromSameBranch: false,
    });
    assert.equal(d.action, 'conflict');
  });

  test('a key into only received from an earlier merge of the same branch fast-forwards', () => {
    assert.equal(
      decideMerge({ base: node('a'), theirs: node('c'), ours: node('b'), oursMergedFromSameBranch: true })
        .action,
      'apply',
    );
  });

  test('absent and tombstone are the same state', () => {
    assert.equal(
      decideMerge({ base: node('a'), theirs: node('a', true), ours: null, oursMergedFromSameBranch: false })
        .action,
      'skip',
    );
    assert.equal(
      decideMerge({
        base: node('a'),
        theirs: node('a', true),
        ours: node('a'),
        oursMergedFromSameBranch: false,
      }).action,
      'apply',
    );
    assert.equal(
      decideMerge({
        base: node('a'),
        theirs: node('a', true),
        ours: node('z'),
        oursMergedFromSameBranch: false,
      }).action,
      'conflict',
    );
  });
});
