// A span's parent is marked remote (OTLP span flags) only when it is another process's: the
// caller's span of an incoming traceparent, or the run span of a run this process resumed. A run
// span this process created is a local parent of its node spans, and a node span of the calls made
// in it.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { InvocationFinished } from '../../src/core/telemetry.ts';
import { traceSettings } from '../../src/observability/settings.ts';
import { startSpanExport } from '../../src/observability/span-export.ts';
import { parseTraceparent, withIncomingTraceparent } from '../../src/observability/trace-context.ts';
import { traceObserver } from '../../src/observability/trace-observer.ts';
import {
  PARENT_IS_REMOTE,
  PARENT_REMOTE_KNOWN,
  type ReceivedSpan,
  startOtlpReceiver,
} from './otlp-receiver.ts';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const CALLER = '00f067aa0ba902b7';
const RUN = '01a226a6-720d-7267-817b-ad5566d55189';

/** What the engine and the sources tell the observer of a run with one node making one call. */
function runOneNode(observer: ReturnType<typeof traceObserver>, created: boolean): void {
  const at = Date.now();
  if (created)
    observer.runCreated!({ run_id: RUN, created_at: at, nodes: [{ type: 'test.step' }], input: {} });
  const node = { run_id: RUN, node_id: 'step', node_type: 'test.step', step: 1, attempt: 1 };
  observer.engineEvent!({ type: 'node.started', ...node, at });
  const call: InvocationFinished = {
    source_invocation_id: '01a226a6-7232-741a-9e0d-e680636ecdff',
    run_id: RUN,
    node_id: 'step',
    interface_name: 'http_json',
    invocation_kind: 'ambient_context',
    status: 'succeeded',
    failure_class: null,
    started_at: at,
    ended_at: at + 1,
    links: { run_id: RUN },
    metadata: {},
    columns: {},
    content: () => ({ request: null, response: null }),
  };
  observer.invocationFinished!(call);
  observer.engineEvent!({ type: 'node.finished', ...node, status: 'ok', duration_ms: 2, at: at + 2 });
  observer.engineEvent!({ type: 'run.updated', run_id: RUN, status: 'completed', step: 1, at: at + 3 });
}

/** The run's spans as exported by an observer of their own (a process of its own). */
async function exported(
  created: boolean,
  stored: string | null,
): Promise<{ run: ReceivedSpan; node: ReceivedSpan; call: ReceivedSpan }> {
  const receiver = await startOtlpReceiver();
  const spans = await startSpanExport(traceSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url })!);
  try {
    const observer = traceObserver({
      spans,
      captureContent: false,
      store: { read: async () => parseTraceparent(stored) },
    });
    withIncomingTraceparent(created ? `00-${TRACE}-${CALLER}-01` : null, () => runOneNode(observer, created));
    await observer.idle();
    await spans.flush(5_000);
    const having = (what: string, is: (s: ReceivedSpan) => boolean) => {
      const found = receiver.spans.find(is);
      assert.ok(found, `a ${what} span`);
      return found;
    };
    return {
      run: having('run', (s) => s.attributes['noema.run.status'] !== undefined),
      node: having('node', (s) => s.name.startsWith('noema.node')),
      call: having('source call', (s) => s.attributes['noema.source_invocation_id'] !== undefined),
    };
  } finally {
    await spans.shutdown(1_000);
    await receiver.close();
  }
}

const remote = (s: ReceivedSpan) => {
  assert.ok(s.flags & PARENT_REMOTE_KNOWN, `${s.name}: the exporter says whether its parent is remote`);
  return (s.flags & PARENT_IS_REMOTE) !== 0;
};

test('in the process that created the run, only the caller’s span is a remote parent', async () => {
  const { run, node, call } = await exported(true, null);
  assert.equal(run.parentSpanId, CALLER);
  assert.equal(remote(run), true, 'the run span’s parent came in a traceparent');
  assert.equal(node.parentSpanId, run.spanId);
  assert.equal(remote(node), false, 'the run span is this process’s');
  assert.equal(call.parentSpanId, node.spanId);
  assert.equal(remote(call), false, 'the node span is this process’s');
});

test('in a process that resumed the run, the run span is a remote parent of its node spans', async () => {
  const { run, node, call } = await exported(false, `00-${TRACE}-${CALLER}-01`);
  assert.equal(run.traceId, TRACE, 'the stored trace context is continued');
  assert.equal(run.parentSpanId, CALLER);
  assert.equal(remote(run), true);
  assert.equal(node.parentSpanId, run.spanId);
  assert.equal(remote(node), true, 'the run was created by another process');
  assert.equal(call.parentSpanId, node.spanId);
  assert.equal(remote(call), false, 'the node ran in this process');
});
