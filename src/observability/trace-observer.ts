/**
 * The telemetry hooks as OpenTelemetry spans: one trace per run — a span for the run, one per node
 * execution, one per source invocation (GenAI conventions) — with times from the records the
 * engine and the sources commit, and ids derived from theirs so a run resumed by another process
 * continues the same trace. The trace context of a run started under an incoming `traceparent` is
 * stored with the run (`run_trace_context`), where a resuming process finds it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { Attributes } from '@opentelemetry/api';
import type {
  EngineEventSeen,
  InvocationFinished,
  InvocationScope,
  RunCreated,
  Telemetry,
} from '../core/telemetry.ts';
import { Incident } from '../core/warn.ts';
import { invocationSpan } from './genai.ts';
import { RunMap } from './run-map.ts';
import { type RunTraceStore, runTraceRow } from './run-trace-store.ts';
import type { SpanExport } from './span-export.ts';
import {
  formatTraceparent,
  incoming,
  invocationSpanId,
  nodeSpanId,
  runSpanId,
  runTraceId,
  type SpanRef,
} from './trace-context.ts';

export type RunKind = 'world_turn' | 'agent_message' | 'flowchart_run';

/** What a run's spans need to know of it; cached per run. */
interface RunTrace {
  traceId: string;
  /** The incoming parent the run was started under, if any. */
  parent: SpanRef | null;
  sampled: boolean;
  created_at: number | null;
  kind: RunKind | null;
  /** Noema ids seen on the run's invocations (world slug, turn, session), put on the run span. */
  ids: Attributes;
  /** The run's own span (the parent of its nodes' spans and of invocations outside a node). */
  ref: SpanRef;
  /** Open node executions: node id → its span (for invocations made inside them). */
  nodes: Map<string, OpenNode>;
}

interface OpenNode extends SpanRef {
  step: number;
  attempt: number;
}

export function runKindOf(node_types: readonly string[]): RunKind {
  if (node_types.some((t) => t.startsWith('world.'))) return 'world_turn';
  if (node_types.some((t) => t.startsWith('flow.'))) return 'flowchart_run';
  return 'agent_message';
}

const RUN_SPAN_NAMES: Record<RunKind, string> = {
  world_turn: 'noema.world.turn',
  agent_message: 'invoke_agent',
  flowchart_run: 'noema.flowchart.run',
};

/**
 * The ids of the runtime's records a run names in its input or graph: an agent message's session
 * (and agent definition), a world turn's attempt, world and turn, a flowchart run's flowchart.
 */
export function runIds(run: Pick<RunCreated, 'nodes' | 'input'>): Attributes {
  const { input } = run;
  const out: Attributes = {};
  const pick = (from: unknown, key: string, as: string) => {
    const v = (from as Record<string, unknown> | null | undefined)?.[key];
    if (typeof v === 'string' || (typeof v === 'number' && Number.isFinite(v))) out[as] = v;
  };
  pick(input.session, 'session_id', 'noema.session_id');
  pick(input.session, 'agent_hash', 'noema.agent_hash');
  pick(input.attempt, 'attempt_id', 'noema.attempt_id');
  pick(input.attempt, 'world_slug', 'noema.world_slug');
  pick(input.attempt, 'attempted_turn', 'noema.attempted_turn');
  const flow = run.nodes.find((n) => n.type.startsWith('flow.'));
  if (flow) pick(flow.config, 'flowchart_id', 'noema.flowchart_id');
  return out;
}

/** The ids an invocation's links name that the run span carries too. */
const RUN_LINK_IDS = ['world_slug', 'attempted_turn', 'attempt_id'].map(
  (key) => [key, `noema.${key}`] as const,
);

/** A number an event field should hold (0 if it does not). */
function finite(v: unknown): number {
  const n = Number(v);
  return Number.isFinite(n) ? n : 0;
}

/** The time a UUIDv7 was made (ms), or null for another kind of uuid. */
function uuidv7Time(id: string): number | null {
  const hex = id.replaceAll('-', '');
  return hex[12] === '7' ? Number.parseInt(hex.slice(0, 12), 16) : null;
}

/**
 * Hook calls whose span work waits for a batch (see `later` in traceObserver): at most this many,
 * or for at most DRAIN_AFTER_MS.
 */
const DRAIN_EVERY = 256;
const DRAIN_AFTER_MS = 50;

/** A hook call put off: an engine event, or a finished invocation with the incoming parent it ran under. */
type Deferred = { event: EngineEventSeen } | { inv: InvocationFinished; incoming: SpanRef | null };

/** The engine events spans are made of: a node's two ends, and the run's end. */
const TRACED_EVENTS: ReadonlySet<string> = new Set(['node.started', 'node.finished', 'run.updated']);

export interface TraceObserverOptions {
  spans: SpanExport;
  captureContent: boolean;
  /** Where the trace context of runs started under an incoming parent is kept (absent: memory only). */
  store?: RunTraceStore | null;
  env?: Readonly<Record<string, string | undefined>>;
}

export function traceObserver(options: TraceObserverOptions): Telemetry & { idle(): Promise<void> } {
  const { spans, captureContent } = options;
  const env = options.env ?? process.env;
  const runs = new RunMap<RunTrace>(10_000);
  const calls = new AsyncLocalStorage<InvocationScope>();
  const failing = new Incident('NOEMA_OTEL_OBSERVER_FAILED');
  /** Reads of stored trace contexts in flight, so spans of a resumed run wait for theirs. */
  const loading = new Map<string, Promise<RunTrace>>();

  /** A run's trace; `here`: the run was created in this process (else its run span is another's). */
  const fresh = (
    run_id: string,
    parent: SpanRef | null,
    created_at: number | null,
    here: boolean,
  ): RunTrace => {
    const traceId = parent?.traceId ?? runTraceId(run_id);
    const sampled = spans.sampled(traceId, parent, 'noema.run');
    return {
      traceId,
      parent,
      sampled,
      created_at,
      kind: null,
      ids: {},
      ref: { traceId, spanId: runSpanId(run_id), sampled, remote: !here },
      nodes: new Map(),
    };
  };

  /** The run's trace: cached, else the stored context (a run started elsewhere), else derived. */
  const runTrace = (run_id: string): RunTrace | Promise<RunTrace> => {
    const known = runs.get(run_id);
    if (known) return known;
    const pending = loading.get(run_id);
    if (pending) return pending;
    if (!options.store) {
      const t = fresh(run_id, null, null, false);
      runs.set(run_id, t);
      return t;
    }
    const read = options.store
      .read(run_id)
      .catch(() => null)
      .then((parent) => {
        loading.delete(run_id);
        const t = runs.get(run_id) ?? fresh(run_id, parent, null, false);
        runs.set(run_id, t);
        return t;
      });
    loading.set(run_id, read);
    return read;
  };

  const withRun = (run_id: string, use: (t: RunTrace) => void): void => {
    const guarded = (t: RunTrace) => {
      try {
        use(t);
        failing.ok();
      } catch (err) {
        failing.fail('noema: making a span failed; runs go on', { error: (err as Error).message });
      }
    };
    const t = runTrace(run_id);
    if (t instanceof Promise) void t.then(guarded);
    else guarded(t);
  };

  const emitRun = (run_id: string, t: RunTrace, status: string, at: number, error: unknown) => {
    if (!t.sampled) return;
    const kind = t.kind;
    const attributes: Attributes = {
      'noema.run_id': run_id,
      'noema.run.status': status,
      ...(kind ? { 'noema.run.kind': kind } : {}),
      ...t.ids,
    };
    if (kind === 'agent_message') attributes['gen_ai.operation.name'] = 'invoke_agent';
    const start = t.created_at ?? uuidv7Time(run_id) ?? at;
    spans.emit({
      name: kind ? RUN_SPAN_NAMES[kind] : 'noema.run',
      kind: 'internal',
      traceId: t.traceId,
      spanId: t.ref.spanId,
      parent: t.parent,
      start,
      end: at,
      attributes,
      error:
        status === 'failed'
          ? ((error as { code?: string; message?: string } | null)?.message ?? 'the run failed')
          : null,
    });
  };

  /** The span work of an engine event: a node's span opened or emitted, the run's emitted. */
  const spanOfEvent = (e: EngineEventSeen): void => {
    if (e.type === 'node.started') {
      withRun(e.run_id, (t) => {
        const step = finite(e.step);
        const attempt = finite(e.attempt);
        t.nodes.set(String(e.node_id), {
          traceId: t.traceId,
          spanId: nodeSpanId(e.run_id, String(e.node_id), step, attempt),
          sampled: t.sampled,
          remote: false,
          step,
          attempt,
        });
        if (t.kind === null && typeof e.node_type === 'string') t.kind = runKindOf([e.node_type]);
      });
    } else if (e.type === 'node.finished') {
      withRun(e.run_id, (t) => {
        const node_id = String(e.node_id);
        const open = t.nodes.get(node_id);
        t.nodes.delete(node_id);
        if (t.kind === null && typeof e.node_type === 'string') t.kind = runKindOf([e.node_type]);
        if (!t.sampled) return;
        const step = finite(e.step);
        const attempt = finite(e.attempt);
        const duration = typeof e.duration_ms === 'number' ? e.duration_ms : 0;
        spans.emit({
          name: `noema.node ${String(e.node_type)}`,
          kind: 'internal',
          traceId: t.traceId,
          spanId:
            open && open.step === step && open.attempt === attempt
              ? open.spanId
              : nodeSpanId(e.run_id, node_id, step, attempt),
          parent: t.ref,
          start: e.at - duration,
          end: e.at,
          attributes: {
            'noema.run_id': e.run_id,
            'noema.node_id': node_id,
            'noema.node_type': String(e.node_type),
            'noema.step': step,
            'noema.attempt': attempt,
            'noema.node.status': String(e.status),
          },
          error: e.status === 'fail' ? (typeof e.error === 'string' ? e.error : 'the node failed') : null,
        });
      });
    } else if (e.type === 'run.updated') {
      const status = String(e.status);
      if (status !== 'completed' && status !== 'failed' && status !== 'cancelled') return;
      withRun(e.run_id, (t) => {
        emitRun(e.run_id, t, status, e.at, e.error);
        runs.delete(e.run_id);
      });
    }
  };

  /** The span of a finished invocation (`ambient`: the incoming parent of a call outside a run). */
  const spanOfInvocation = (inv: InvocationFinished, ambient: SpanRef | null): void => {
    const emit = (t: RunTrace | null) => {
      const inRun = t && inv.run_id ? t : null;
      const parent: SpanRef | null = inRun
        ? ((inv.node_id ? inRun.nodes.get(inv.node_id) : undefined) ?? inRun.ref)
        : ambient;
      const traceId = parent?.traceId ?? runTraceId(inv.source_invocation_id);
      const sampled = parent ? parent.sampled : spans.sampled(traceId, null, 'source');
      if (inRun) {
        // Indexed: a destructuring loop made iterators for every invocation.
        for (let i = 0; i < RUN_LINK_IDS.length; i++) {
          const key = RUN_LINK_IDS[i]![0];
          const as = RUN_LINK_IDS[i]![1];
          const v = inv.links[key];
          if (typeof v === 'string' || typeof v === 'number') inRun.ids[as] = v;
        }
      }
      if (!sampled) return;
      const shape = invocationSpan(inv, captureContent, env);
      spans.emit({
        name: shape.name,
        kind: shape.kind,
        traceId,
        spanId: invocationSpanId(inv.source_invocation_id),
        parent,
        start: inv.started_at,
        end: inv.ended_at,
        attributes: shape.attributes,
        error: inv.status === 'succeeded' ? null : (inv.failure_class ?? inv.status),
      });
    };
    if (inv.run_id) withRun(inv.run_id, emit);
    else emit(null);
  };

  /**
   * Hook calls waiting for their span work. The hooks run between a run's statements and socket
   * reads, where the same work costs several times what it costs done together: they queue what
   * they are told and the spans are made a batch at a time, in the order told.
   */
  let deferred: Deferred[] = [];
  let drainTimer: NodeJS.Timeout | null = null;
  const drain = (): void => {
    if (drainTimer) clearTimeout(drainTimer);
    drainTimer = null;
    const batch = deferred;
    deferred = [];
    for (const d of batch) {
      try {
        if ('event' in d) spanOfEvent(d.event);
        else spanOfInvocation(d.inv, d.incoming);
      } catch (err) {
        failing.fail('noema: making a span failed; runs go on', { error: (err as Error).message });
      }
    }
  };
  const later = (d: Deferred): void => {
    deferred.push(d);
    if (deferred.length >= DRAIN_EVERY) drain();
    else if (drainTimer === null) {
      drainTimer = setTimeout(drain, DRAIN_AFTER_MS);
      drainTimer.unref();
    }
  };

  return {
    engineEventTypes: TRACED_EVENTS,

    runRows(run: RunCreated) {
      const parent = incoming.getStore();
      return parent && options.store ? [runTraceRow(run.run_id, parent, run.created_at)] : [];
    },

    runCreated(run: RunCreated) {
      const t = fresh(run.run_id, incoming.getStore() ?? null, run.created_at, true);
      t.kind = runKindOf(run.nodes.map((n) => n.type));
      Object.assign(t.ids, runIds(run));
      runs.set(run.run_id, t);
    },

    engineEvent(e: EngineEventSeen) {
      // The run's stored trace context is read now, so a call it makes before the drain has it.
      if (!runs.get(e.run_id)) void runTrace(e.run_id);
      later({ event: e });
    },

    invocationFinished(inv: InvocationFinished) {
      later({ inv, incoming: inv.run_id ? null : (incoming.getStore() ?? null) });
    },

    aroundCall<T>(scope: InvocationScope, fn: () => T): T {
      return calls.run(scope, fn);
    },

    outgoingTraceparent() {
      const scope = calls.getStore();
      if (!scope) return undefined;
      const t = scope.run_id ? runs.get(scope.run_id) : undefined;
      const parent = t ? null : (incoming.getStore() ?? null);
      const traceId = t?.traceId ?? parent?.traceId ?? runTraceId(scope.run_id ?? scope.source_invocation_id);
      return formatTraceparent({
        traceId,
        // The id its span will have (derived again when the span is made, in a batch).
        spanId: invocationSpanId(scope.source_invocation_id),
        // As the span itself will be sampled (see invocationFinished).
        sampled: t?.sampled ?? parent?.sampled ?? spans.sampled(traceId, null, 'source'),
      });
    },

    async idle() {
      drain();
      await Promise.all(loading.values());
    },
  };
}
