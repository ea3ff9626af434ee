/**
 * Span export for the trace observer: the sampling decision, taken here at once, and a bounded
 * queue of finished spans made from Noema's records, handed in batches to a worker thread that runs
 * the OpenTelemetry SDK's batch span processor and the OTLP/HTTP exporter the settings name
 * (`span-export-thread.js`). Encoding and sending spans never runs on the thread that runs the
 * runs. Loaded only by `import()` once tracing is configured.
 */

import type { Worker } from 'node:worker_threads';
import {
  type Attributes,
  ROOT_CONTEXT,
  type Sampler,
  SamplingDecision,
  SpanKind,
  trace,
} from '@opentelemetry/api';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
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

/**
 * Spans handed to the thread at most this many at a time (a full export batch goes at once). Each
 * hand-over wakes the thread, which costs the sender about as much as copying tens of spans.
 */
const POST_EVERY = 256;
/**
 * How long a span may wait here before the thread is handed what has gathered (ms); a flush hands
 * it over at once, and the batch processor waits OTEL_BSP_SCHEDULE_DELAY (5 s) beyond this anyway.
 */
const POST_AFTER_MS = 100;

type FromThread =
  | { type: 'ready' }
  | { type: 'settled'; count: number; ok: boolean; error?: string }
  | { type: 'done'; id: number };

/** Starts the export thread; rejects when it cannot load its exporter. */
async function startThread(settings: TraceSettings): Promise<Worker> {
  const { Worker } = await import('node:worker_threads');
  const worker = new Worker(new URL('./span-export-thread.js', import.meta.url), {
    workerData: { settings },
  });
  await new Promise<void>((resolve, reject) => {
    const failed = (err: Error) => reject(err);
    const exited = (code: number) => reject(new Error(`the span export thread exited (${code})`));
    worker.once('error', failed);
    worker.once('exit', exited);
    worker.once('message', (m: FromThread) => {
      worker.off('error', failed);
      worker.off('exit', exited);
      if (m.type === 'ready') resolve();
      else reject(new Error(`the span export thread said ${m.type} first`));
    });
  });
  return worker;
}

export async function startSpanExport(settings: TraceSettings): Promise<SpanExport> {
  const sampler = samplerOf(settings.sampler);
  const { batch } = settings;
  const worker = await startThread(settings);
  const postEvery = Math.min(POST_EVERY, batch.maxExportBatchSize);
  const exportIncident = new Incident('NOEMA_OTEL_EXPORT_FAILED');
  const overflowIncident = new Incident('NOEMA_OTEL_EXPORT_FAILED');
  /** Spans accepted, and of those, the ones whose export has settled (sent or failed). */
  let queued = 0;
  let settled = 0;
  let failed = 0;
  let overflow = 0;
  /** Set once the thread is gone: what it held and whatever comes after is dropped. */
  let gone = false;
  let pending: SpanSpec[] = [];
  let timer: NodeJS.Timeout | null = null;
  let nextId = 0;
  const waiting = new Map<number, () => void>();

  const post = () => {
    if (timer) clearTimeout(timer);
    timer = null;
    if (pending.length === 0 || gone) return;
    worker.postMessage({ type: 'spans', specs: pending });
    pending = [];
  };

  worker.on('message', (m: FromThread) => {
    if (m.type === 'done') {
      waiting.get(m.id)?.();
      waiting.delete(m.id);
    } else if (m.type === 'settled' && !gone) {
      settled += m.count;
      if (m.ok) exportIncident.ok();
      else {
        failed += m.count;
        exportIncident.fail('noema: exporting spans failed; they are dropped and runs go on', {
          url: settings.url,
          dropped: failed,
          error: m.error ?? 'export failed',
        });
      }
    }
  });
  const lost = (why: string) => {
    if (gone) return;
    gone = true;
    const unsent = queued - settled;
    failed += unsent;
    settled = queued;
    pending = [];
    for (const done of waiting.values()) done();
    waiting.clear();
    if (unsent === 0) return;
    exportIncident.fail('noema: spans were not exported; they are dropped and runs go on', {
      url: settings.url,
      dropped: failed,
      error: why,
    });
  };
  worker.on('error', (err) => lost(err.message));
  worker.on('exit', (code) => lost(`exited with code ${code}`));
  // Queued spans never keep the process alive (a flush holds it while it waits: see `ask`). After
  // the listeners: adding one refs the thread again.
  worker.unref();

  /** Hands the thread what is pending, then `type` (flush or shutdown), waiting at most `timeoutMs`. */
  const ask = (type: 'flush' | 'shutdown', timeoutMs: number): Promise<void> => {
    post();
    if (gone) return Promise.resolve();
    const id = nextId++;
    // Held while asked, so the process waits for the answer (or the bound) before it exits.
    worker.ref();
    const answered = new Promise<void>((resolve) => waiting.set(id, resolve));
    worker.postMessage({ type, id });
    return bounded(answered, timeoutMs).finally(() => {
      waiting.delete(id);
      if (!gone) worker.unref();
    });
  };

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
      if (gone || queued - settled >= batch.maxQueueSize) {
        overflow++;
        overflowIncident.fail('noema: the span queue is full; spans are dropped and runs go on', {
          dropped: overflow,
        });
        return;
      }
      pending.push(spec);
      queued++;
      if (queued - settled < batch.maxQueueSize) overflowIncident.ok();
      if (pending.length >= postEvery) post();
      else if (timer === null) {
        timer = setTimeout(post, POST_AFTER_MS);
        timer.unref();
      }
    },
    dropped: () => failed + overflow,
    flush: (timeoutMs) => ask('flush', timeoutMs),
    async shutdown(timeoutMs) {
      await ask('shutdown', timeoutMs);
      // What the bound left unsent (a collector still being retried) is dropped with the thread.
      lost('shut down before they were sent');
      await worker.terminate();
    },
  };
}
