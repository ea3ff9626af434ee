// The OpenTelemetry SDK side of span export, on a worker thread of its own: the OTLP/HTTP exporter
// the settings name behind the SDK's batch span processor, fed finished spans made from Noema's
// records (`SpanSpec`s, see span-export.ts) with the ids and times those records fix. Encoding a
// batch (the OTLP serializer) and sending it cost the run's thread nothing here.
//
// Plain JavaScript on purpose: a worker thread has none of the process's module hooks, and
// installed as a dependency Noema's TypeScript loads only through one (bin/strip-installed.js).
//
// A span here describes work that has already ended and been recorded, so it is handed to the
// processor as the SDK's `ReadableSpan` directly rather than started and ended through a `Tracer`:
// the tracer would only re-check attributes the observer builds valid, re-run a sampling decision
// made once per run, and need its id generator steered to the record's ids.
//
// Messages in: { type: 'spans', specs } | { type: 'flush', id } | { type: 'shutdown', id }.
// Messages out: { type: 'ready' } | { type: 'settled', count, ok, error? } | { type: 'done', id }.
import { getPriority, setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { ExportResultCode } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor } from '@opentelemetry/sdk-trace';

// Export is background work: where the runs' thread and this one want the same core, the runs'
// thread goes first. On Linux a nice value is a thread's own, and `setPriority` without a pid sets
// the calling thread's: ten nicer than the process, as far as that goes. Elsewhere (or where it is
// refused) the thread runs as it is.
try {
  setPriority(Math.min(getPriority() + 10, 19));
} catch {
  // Not lowered: export still runs on its own thread.
}

const SCOPE = { name: 'noema' };
const NO_LINKS = [];
const NO_EVENTS = [];
const UNSET = { code: SpanStatusCode.UNSET };

/** Milliseconds since the epoch as the SDK's [seconds, nanoseconds]. */
function hrTime(ms) {
  const seconds = Math.floor(ms / 1000);
  const nanos = Math.round((ms - seconds * 1000) * 1e6);
  return nanos >= 1e9 ? [seconds + 1, nanos - 1e9] : [seconds, nanos];
}

/** A finished span made from a record, in the shape the SDK's processors and exporters read. */
class RecordSpan {
  links = NO_LINKS;
  events = NO_EVENTS;
  ended = true;
  instrumentationScope = SCOPE;
  droppedAttributesCount = 0;
  droppedEventsCount = 0;
  droppedLinksCount = 0;
  #context;
  #ms;

  constructor(spec, resource) {
    const end = Math.max(spec.end, spec.start);
    this.name = spec.name;
    this.kind = spec.kind === 'client' ? SpanKind.CLIENT : SpanKind.INTERNAL;
    this.#context = { traceId: spec.traceId, spanId: spec.spanId, traceFlags: 1 };
    this.parentSpanContext = spec.parent
      ? {
          traceId: spec.parent.traceId,
          spanId: spec.parent.spanId,
          traceFlags: spec.parent.sampled ? 1 : 0,
          isRemote: spec.parent.remote,
        }
      : undefined;
    this.startTime = hrTime(spec.start);
    this.endTime = hrTime(end);
    this.#ms = end - spec.start;
    this.status =
      spec.error !== undefined && spec.error !== null
        ? { code: SpanStatusCode.ERROR, message: spec.error }
        : UNSET;
    this.attributes = spec.attributes;
    this.resource = resource;
  }

  /** Not encoded by the OTLP serializers (they send the start and end): made only if read. */
  get duration() {
    return hrTime(this.#ms);
  }

  spanContext() {
    return this.#context;
  }
}

async function exporterOf(settings) {
  const config = {
    url: settings.url,
    headers: settings.headers,
    timeoutMillis: settings.timeoutMillis,
    compression: settings.compression,
  };
  const { OTLPTraceExporter } =
    settings.protocol === 'http/json'
      ? await import('@opentelemetry/exporter-trace-otlp-http')
      : await import('@opentelemetry/exporter-trace-otlp-proto');
  return new OTLPTraceExporter(config);
}

/** Tells the run's thread how each export ended (it counts the drops and logs the incident). */
function reporting(inner) {
  return {
    export(spans, done) {
      inner.export(spans, (result) => {
        const ok = result.code === ExportResultCode.SUCCESS;
        parentPort.postMessage({
          type: 'settled',
          count: spans.length,
          ok,
          ...(ok ? {} : { error: result.error?.message ?? 'export failed' }),
        });
        done(result);
      });
    },
    shutdown: () => inner.shutdown(),
    forceFlush: () => inner.forceFlush?.() ?? Promise.resolve(),
  };
}

const { settings } = workerData;
const resource = resourceFromAttributes(settings.resource);
const processor = new BatchSpanProcessor({
  exporter: reporting(await exporterOf(settings)),
  ...settings.batch,
});

parentPort.on('message', (m) => {
  if (m.type === 'spans') {
    for (const spec of m.specs) processor.onEnd(new RecordSpan(spec, resource));
    return;
  }
  const work = m.type === 'shutdown' ? processor.shutdown() : processor.forceFlush();
  work.then(
    () => parentPort.postMessage({ type: 'done', id: m.id }),
    () => parentPort.postMessage({ type: 'done', id: m.id }),
  );
});
parentPort.postMessage({ type: 'ready' });
