/**
 * The OpenTelemetry SDK side: a tracer provider with the OTLP/HTTP exporter the settings name, a
 * batch processor behind a bounded queue, and spans made from Noema's records with the ids and
 * times those records fix. Loaded only by `import()` once tracing is configured.
 */

import { randomBytes } from 'node:crypto';
import {
  type Attributes,
  ROOT_CONTEXT,
  type Sampler,
  SamplingDecision,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { type ExportResult, ExportResultCode } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  type IdGenerator,
  ParentBasedSampler,
  type ReadableSpan,
  type SpanExporter,
  TraceIdRatioBasedSampler,
  TracerProvider,
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
  attributes: Attributes;
  /** Set when the work failed: the span's status is ERROR with this description. */
  error?: string | null;
}

export interface SpanExport {
  /** Whether a trace rooted here (under `parent`, if any) is sampled. */
  sampled(traceId: string, parent: SpanRef | null, name: string): boolean;
  /** Queues the span for export; never blocks, never throws. */
  emit(spec: SpanSpec): void;
  /** Spans dropped: the queue was full or the collector refused or could not be reached. */
  dropped(): number;
  /** Exports what is queued, waiting at most `timeoutMs`. */
  flush(timeoutMs: number): Promise<void>;
  /** Flushes (at most `timeoutMs`) and stops. */
  shutdown(timeoutMs: number): Promise<void>;
}

/** Spans waiting in the batch processor at most; more are dropped (and counted). */
const MAX_QUEUE = 2048;
const MAX_BATCH = 512;

/** Hands the next span the ids its record fixes; random ones otherwise (spans of other code). */
class PresetIds implements IdGenerator {
  nextTraceId: string | null = null;
  nextSpanId: string | null = null;
  generateTraceId(): string {
    const id = this.nextTraceId ?? randomBytes(16).toString('hex');
    this.nextTraceId = null;
    return id;
  }
  generateSpanId(): string {
    const id = this.nextSpanId ?? randomBytes(8).toString('hex');
    this.nextSpanId = null;
    return id;
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
  const ids = new PresetIds();
  const sampler = samplerOf(settings.sampler);
  const exporter = new CountingExporter(await exporterOf(settings), settings.url);
  const provider = new TracerProvider({
    resource: resourceFromAttributes(settings.resource),
    sampler,
    idGenerator: ids,
    spanProcessors: [
      new BatchSpanProcessor({
        exporter,
        maxQueueSize: MAX_QUEUE,
        maxExportBatchSize: MAX_BATCH,
        scheduledDelayMillis: 500,
      }),
    ],
  });
  const tracer = provider.getTracer('noema');
  let queued = 0;
  let overflow = 0;
  const overflowIncident = new Incident('NOEMA_OTEL_EXPORT_FAILED');

  const parentContext = (parent: SpanRef | null) =>
    parent
      ? trace.setSpanContext(ROOT_CONTEXT, {
          traceId: parent.traceId,
          spanId: parent.spanId,
          traceFlags: parent.sampled ? 1 : 0,
          isRemote: true,
        })
      : ROOT_CONTEXT;

  return {
    sampled(traceId, parent, name) {
      const r = sampler.shouldSample(parentContext(parent), traceId, name, SpanKind.INTERNAL, {}, []);
      return r.decision === SamplingDecision.RECORD_AND_SAMPLED;
    },
    emit(spec) {
      if (queued - exporter.settled >= MAX_QUEUE) {
        overflow++;
        overflowIncident.fail('noema: the span queue is full; spans are dropped and runs go on', {
          dropped: overflow,
        });
        return;
      }
      ids.nextTraceId = spec.traceId;
      ids.nextSpanId = spec.spanId;
      const span = tracer.startSpan(
        spec.name,
        {
          kind: spec.kind === 'client' ? SpanKind.CLIENT : SpanKind.INTERNAL,
          startTime: spec.start,
          attributes: spec.attributes,
        },
        parentContext(spec.parent),
      );
      ids.nextTraceId = null;
      ids.nextSpanId = null;
      if (!span.isRecording()) return;
      if (spec.error !== undefined && spec.error !== null)
        span.setStatus({ code: SpanStatusCode.ERROR, message: spec.error });
      span.end(Math.max(spec.end, spec.start));
      queued++;
      if (queued - exporter.settled < MAX_QUEUE) overflowIncident.ok();
    },
    dropped: () => exporter.dropped + overflow,
    flush: (timeoutMs) => bounded(provider.forceFlush(), timeoutMs),
    async shutdown(timeoutMs) {
      await bounded(provider.shutdown(), timeoutMs);
    },
  };
}
