import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Counter, Histogram, Registry } from 'prom-client';
import { CounterCells, HistogramCells } from './metric-cells.ts';

const BUCKETS = [0.01, 0.1, 1];

test('counter and histogram cells expose what prom-client’s own metrics expose for the same observations', async () => {
  const ours = new Registry();
  const theirs = new Registry();
  const calls = new CounterCells(ours, 'calls_total', 'Calls.', ['kind', 'status']);
  const callsRef = new Counter({
    name: 'calls_total',
    help: 'Calls.',
    labelNames: ['kind', 'status'],
    registers: [theirs],
  });
  const took = new HistogramCells(ours, 'took_seconds', 'Took.', ['kind'], BUCKETS);
  const tookRef = new Histogram({
    name: 'took_seconds',
    help: 'Took.',
    labelNames: ['kind'],
    buckets: BUCKETS,
    registers: [theirs],
  });
  const bare = new HistogramCells(ours, 'bare_seconds', 'Bare.', [], BUCKETS);
  new Histogram({ name: 'bare_seconds', help: 'Bare.', buckets: BUCKETS, registers: [theirs] });
  bare.at();
  for (const [kind, status, n] of [
    ['a', 'ok', 3],
    ['b', 'ok', 1],
    ['a', 'failed', 2],
  ] as const) {
    calls.at(kind, status).value += n;
    callsRef.inc({ kind, status }, n);
  }
  for (const [kind, v] of [
    ['a', 0.005],
    ['a', 0.01],
    ['a', 0.5],
    ['b', 7],
  ] as const) {
    took.observe(took.at(kind), v);
    tookRef.observe({ kind }, v);
  }
  assert.equal(await ours.metrics(), await theirs.metrics());
});

test('a non-finite observation is not counted', async () => {
  const registry = new Registry();
  const took = new HistogramCells(registry, 'took_seconds', 'Took.', [], BUCKETS);
  const cell = took.at();
  took.observe(cell, Number.NaN);
  took.observe(cell, Number.POSITIVE_INFINITY);
  assert.equal(cell.count, 0);
});
