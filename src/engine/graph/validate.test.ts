import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { NoemaError } from '../../core/errors.ts';
import { schemas } from '../../core/schema-registry.ts';
import { kitTypes } from '../../testing/engine-kit.ts';
import type { GraphSpec } from '../engine.ts';
import { NodeRegistry } from './registry.ts';
import { assertValidGraph, graphProblems } from './validate.ts';

const registry = new NodeRegistry();
for (const t of kitTypes) registry.register(t);

describe('graph validation', () => {
  test('a valid graph has no problems', () => {
    const g: GraphSpec = {
      entry: 'a',
      nodes: [
        { id: 'a', type: 'append' },
        { id: 'end', type: 'terminal' },
      ],
      connectors: [{ from: 'a', to: 'end' }],
      channels: { messages: { reducer: 'append' } },
    };
    assert.deepEqual(graphProblems(g, registry, schemas), []);
  });

  test('lists every problem at once: unknown type, duplicate id, dangling connector, unreachable terminal', async () => {
    const g: GraphSpec = {
      entry: 'a',
      nodes: [
        { id: 'a', type: 'append' },
        { id: 'a', type: 'append' },
        { id: 'b', type: 'no_such_type' },
        { id: 'end', type: 'terminal' },
      ],
      connectors: [
        { from: 'a', to: 'b' },
        { from: 'b', to: 'ghost' },
        { from: 'a', to: 'end', mode: 'dotted' },
      ],
    };
    const codes = graphProblems(g, registry, schemas).map((p) => p.code);
    assert.deepEqual(codes.sort(), [
      'DANGLING_CONNECTOR',
      'DUPLICATE_NODE_ID',
      'UNKNOWN_NODE_TYPE',
      'UNREACHABLE_TERMINAL',
    ]);
    await assert.rejects(
      assertValidGraph(g, registry),
      (e: unknown) =>
        e instanceof NoemaError &&
        e.code === 'GRAPH_INVALID' &&
        (e.details.problems as unknown[]).length === 4,
    );
  });

  test('a graph without a terminal, a bad mode, a routed dotted connector and bad config are reported with paths', () => {
    const g = {
      entry: 'c',
      nodes: [{ id: 'c', type: 'counter', config: { limit: 0 }, max_generation_attempts: 0 }],
      connectors: [
        { from: 'c', to: 'c', mode: 'wavy' },
        { from: 'c', to: 'c', mode: 'dotted', route: 'x' },
      ],
      channels: { count: { reducer: 'sum' } },
    } as unknown as GraphSpec;
    const problems = graphProblems(g, registry, schemas);
    const byCode = (code: string) => problems.filter((p) => p.code === code);
    assert.equal(byCode('NO_TERMINAL').length, 1);
    assert.equal(byCode('INVALID_CONNECTOR').length, 2);
    assert.deepEqual(byCode('INVALID_NODE_CONFIG')[0]?.path, '/nodes/0/config/limit');
    assert.equal(byCode('INVALID_CHANNEL').length, 1);
    assert.equal(byCode('INVALID_FIELD')[0]?.path, '/nodes/0/max_generation_attempts');
  });

  test('an unknown entry is reported', () => {
    const g: GraphSpec = { entry: 'zz', nodes: [{ id: 'end', type: 'terminal' }], connectors: [] };
    assert.deepEqual(
      graphProblems(g, registry, schemas).map((p) => p.code),
      ['UNKNOWN_ENTRY'],
    );
  });
});
