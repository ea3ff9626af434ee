// The observer makes its spans a batch at a time, after the hooks that told it return: a span it
// fails to make is logged once and the batch's other spans still go out, and a batch drained by
// its timer (nobody waiting on it) never throws into the process.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { InvocationFinished } from '../core/telemetry.ts';
import { captureWarnings } from '../testing/warnings.ts';
import type { SpanExport, SpanSpec } from './span-export.ts';
import { traceObserver } from './trace-observer.ts';

/** A span export that keeps what it is handed, but throws for the first `refuse` spans. */
function keptSpans(refuse: number): SpanExport & { kept: SpanSpec[] } {
  const kept: SpanSpec[] = [];
  let refused = 0;
  return {
    kept,
    sampled: () => true,
    emit(spec) {
      if (refused++ < refuse) throw new Error(`no ${spec.name}`);
      kept.push(spec);
    },
    dropped: () => 0,
    flush: async () => {},
    shutdown: async () => {},
  };
}

/** A finished call outside any run. */
function call(n: number): InvocationFinished {
  return {
    source_invocation_id: `01a226a6-7232-741a-9e0d-e680636ecd${String(n).padStart(2, '0')}`,
    run_id: null,
    node_id: null,
    interface_name: 'http_json',
    invocation_kind: 'ambient_context',
    status: 'succeeded',
    failure_class: null,
    started_at: 1,
    ended_at: 2,
    links: {},
    metadata: {},
    columns: {},
    content: () => ({ request: null, response: null }),
  };
}

test('spans are made after the hook returns, in the order told, when the batch drains', async () => {
  const spans = keptSpans(0);
  const observer = traceObserver({ spans, captureContent: false });
  for (let i = 0; i < 3; i++) observer.invocationFinished!(call(i));
  assert.equal(spans.kept.length, 0, 'the hook only queues');
  await observer.idle();
  const ids = [0, 1, 2].map((i) => call(i).source_invocation_id);
  assert.deepEqual(
    spans.kept.map((s) => s.attributes['noema.source_invocation_id']),
    ids,
  );
});

test("a span that cannot be made is logged, the batch's others still go out, and the timer's drain does not throw", async () => {
  const warnings = captureWarnings();
  const uncaught: unknown[] = [];
  const onUncaught = (err: unknown) => uncaught.push(err);
  process.on('uncaughtException', onUncaught);
  try {
    const spans = keptSpans(1);
    const observer = traceObserver({ spans, captureContent: false });
    observer.invocationFinished!(call(1));
    observer.invocationFinished!(call(2));
    // Nobody calls idle(): the batch is drained by its timer.
    const until = Date.now() + 5_000;
    while (spans.kept.length === 0 && Date.now() < until) await new Promise((r) => setTimeout(r, 10));
    assert.equal(spans.kept.length, 1, "the refused span's neighbour is exported");
    assert.ok(await warnings.waitFor('NOEMA_OTEL_OBSERVER_FAILED'), 'the failure is logged');
    assert.deepEqual(uncaught, []);
  } finally {
    process.off('uncaughtException', onUncaught);
    warnings.stop();
  }
});
