/**
 * The OpenTelemetry SDK side: the OTLP/HTTP exporter the settings name behind the SDK's batch span
 * processor (a bounded queue), fed finished spans made from Noema's records with the ids and times
 * those records fix. Loaded only by `import()` once tracing is configured.
 *
 * A span here describes work that has already ended and been recorded, so it is handed to the
 * processor as the SDK's `ReadableSpan` directly rather than started and ended through a `Tracer`:
 * the tracer would only re-check attributes this module builds valid, re-run a sampling decision
 * the observer made once per run, and need its id generator steered to the record's ids.
 */

import {
  type Attributes,
  type HrTime,
  type Link,
  ROOT_CONTEXT,
  type Sampler,
  SamplingDecision,
  type SpanContext,
  SpanKind,
  type SpanStatus,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { type ExportResult, ExportResultCode, type InstrumentationScope } from '@opentelemetry/core';
import { type Resource, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  type ReadableSpan,
  type SpanExporter,
  type TimedEvent,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace';
import { Incident } from '../core/warn.ts';
import type { SamplerSetting, TraceSettings } from './settings.ts';
import type { SpanRef } from './trace-context.ts';

/** One span, its ids and times taken from the records it describes. */
export interface SpanSpec {
  name: string;
  kind: 'internal' | 'client';
  traceId: string;
  spanId: string;
  /** The parent span (possibly in another process or service), or null for a root span. */
  parent: SpanRef | null;
  start: number;
  end: number;
  /** Valid values only (strings, finite numbers, booleans, arrays of them): they are not checked again. */
  attributes: Attributes;
  /** Set when the work failed: the span's status is ERROR with this description. */
  error?: string | null;
}

export interface SpanExport {
  /** Whether a trace rooted here (under `parent`, if any) is sampled. */
  sampled(traceId: string, parent: SpanRef | null, name: string): boolean;
  /** Queues the span of a trace `sampled` said yes to for export; never blocks, never throws. */
  emit(spec: SpanSpec): void;
  /** Spans dropped: the queue was full or the collector refused or could not be reached. */
  dropped(): number;
  /** Exports what is queued, waiting at most `timeoutMs`. */
  flush(timeoutMs: number): Promise<void>;
  /** Flushes (at most `timeoutMs`) and stops. */
  shutdown(timeoutMs: number): Promise<void>;
}

const SCOPE: InstrumentationScope = { name: 'noema' };
const NO_LINKS: Link[] = [];
const NO_EVENTS: TimedEvent[] = [];
const UNSET: SpanStatus = { code: SpanStatusCode.UNSET };

/** Milliseconds since the epoch as the SDK's [seconds, nanoseconds]. */
function hrTime(ms: number): HrTime {
  const seconds = Math.floor(ms / 1000);
  const nanos = Math.round((ms - seconds * 1000) * 1e6);
  return nanos >= 1e9 ? [seconds + 1, nanos - 1e9] : [seconds, nanos];
}

/** A finished span made from a record, in the shape the SDK's processors and exporters read. */
class RecordSpan implements ReadableSpan {
  readonly name: string;
  readonly kind: SpanKind;
  readonly parentSpanContext: SpanContext | undefined;
  readonly startTime: HrTime;
  readonly endTime: HrTime;
  readonly status: SpanStatus;
  readonly attributes: Attributes;
  readonly links = NO_LINKS;
  readonly events = NO_EVENTS;
  readonly ended = true;
  readonly resource: Resource;
  readonly instrumentationScope = SCOPE;
  readonly droppedAttributesCount = 0;
  readonly droppedEventsCount = 0;
  readonly droppedLinksCount = 0;
  readonly #context: SpanContext;
  readonly #ms: number;

  constructor(spec: SpanSpec, resource: Resource) {
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
  get duration(): HrTime {
    return hrTime(this.#ms);
  }

  spanContext(): SpanContext {
    return this.#context;
  }
}

function samplerOf(s: SamplerSetting): Sampler {
  switch (s.kind) {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(s.ratio);
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(s.ratio) });
  }
}

async function exporterOf(settings: TraceSettings): Promise<SpanExporter> {
  const config = { url: settings.url, headers: settings.headers, timeoutMillis: 10_000 };
  if (settings.protocol === 'http/json') {
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
    return new OTLPTraceExporter(config);
  }
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-proto');
  return new OTLPTraceExporter(config);
}

/**
 * Counts what the exporter could not deliver and says so once per incident (the collector down is
 * one line, however many batches fail, until an export succeeds again).
 */
class CountingExporter implements SpanExporter {
  readonly #inner: SpanExporter;
  readonly #incident = new Incident('NOEMA_OTEL_EXPORT_FAILED');
  readonly #url: string;
  /** Spans handed to the exporter whose export has not settled. */
  settled = 0;
  dropped = 0;

  constructor(inner: SpanExporter, url: string) {
    this.#inner = inner;
    this.#url = url;
  }

  export(spans: ReadableSpan[], done: (result: ExportResult) => void): void {
    this.#inner.export(spans, (result) => {
      this.settled += spans.length;
      if (result.code === ExportResultCode.SUCCESS) this.#incident.ok();
      else {
        this.dropped += spans.length;
        this.#incident.fail('noema: exporting spans failed; they are dropped and runs go on', {
          url: this.#url,
          dropped: this.dropped,
          error: result.error?.message ?? 'export failed',
        });
      }
      done(result);
    });
  }

  shutdown(): Promise<void> {
    return this.#inner.shutdown();
  }

  forceFlush(): Promise<void> {
    return this.#inner.forceFlush?.() ?? Promise.resolve();
  }
}

function bounded(work: Promise<unknown>, timeoutMs: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    work.then(
      () => {},
      () => {},
    ),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
      timer.unref();
    }),
  ]).finally(() => clearTimeout(timer));
}

export async function startSpanExport(settings: TraceSettings): Promise<SpanExport> {
  const sampler = samplerOf(settings.sampler);
  const exporter = new CountingExporter(await exporterOf(settings), settings.url);
  const resource = resourceFromAttributes(settings.resource);
  const { batch } = settings;
  const processor = new BatchSpanProcessor({ exporter, ...batch });
  let queued = 0;
  let overflow = 0;
  const overflowIncident = new Incident('NOEMA_OTEL_EXPORT_FAILED');

  const parentContext = (parent: SpanRef | null) =>
    parent
      ? trace.setSpanContext(ROOT_CONTEXT, {
          traceId: parent.traceId,
          spanId: parent.spanId,
          traceFlags: parent.sampled ? 1 : 0,
          isRemote: parent.remote,
        })
      : ROOT_CONTEXT;

  return {
    sampled(traceId, parent, name) {
      const r = sampler.shouldSample(parentContext(parent), traceId, name, SpanKind.INTERNAL, {}, []);
      return r.decision === SamplingDecision.RECORD_AND_SAMPLED;
    },
    emit(spec) {
      if (queued - exporter.settled >= batch.maxQueueSize) {
        overflow++;
        overflowIncident.fail('noema: the span queue is full; spans are dropped and runs go on', {
          dropped: overflow,
        });
        return;
      }
      processor.onEnd(new RecordSpan(spec, resource));
      queued++;
      if (queued - exporter.settled < batch.maxQueueSize) overflowIncident.ok();
    },
    dropped: () => exporter.dropped + overflow,
    flush: (timeoutMs) => bounded(processor.forceFlush(), timeoutMs),
    async shutdown(timeoutMs) {
      await bounded(processor.shutdown(), timeoutMs);
    },
  };
}
