/**
 * Tracing settings from the standard OpenTelemetry variables alone (no Noema-specific ones). Read
 * without loading the SDK: `null` means tracing is off and nothing of OpenTelemetry is loaded.
 */
import { NoemaError } from '../core/errors.ts';

export type Env = Readonly<Record<string, string | undefined>>;

export type OtlpProtocol = 'http/protobuf' | 'http/json';

export type SamplerSetting =
  | { kind: 'always_on' | 'always_off' | 'parentbased_always_on' | 'parentbased_always_off' }
  | { kind: 'traceidratio' | 'parentbased_traceidratio'; ratio: number };

export interface TraceSettings {
  /** The full URL spans are POSTed to (`…/v1/traces`). */
  url: string;
  protocol: OtlpProtocol;
  headers: Record<string, string>;
  /** Resource attributes, `service.name` included. */
  resource: Record<string, string>;
  sampler: SamplerSetting;
  /** OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true: prompts and completions on spans. */
  captureContent: boolean;
  /** The batch span processor's settings (OTEL_BSP_*). */
  batch: BatchSettings;
  /** OTEL_EXPORTER_OTLP_(TRACES_)TIMEOUT: ms one export request may take before it is given up. */
  timeoutMillis: number;
  /** OTEL_EXPORTER_OTLP_(TRACES_)COMPRESSION: the request body gzip-compressed, or not. */
  compression: 'gzip' | 'none';
}

export interface BatchSettings {
  /** OTEL_BSP_SCHEDULE_DELAY: ms between exports of a batch that is not full. */
  scheduledDelayMillis: number;
  /** OTEL_BSP_MAX_QUEUE_SIZE: spans waiting at most; more are dropped. */
  maxQueueSize: number;
  /** OTEL_BSP_MAX_EXPORT_BATCH_SIZE: spans per export; a full batch is exported at once. */
  maxExportBatchSize: number;
  /** OTEL_BSP_EXPORT_TIMEOUT: ms an export may take. */
  exportTimeoutMillis: number;
}

/** The specification's defaults. */
const BATCH_DEFAULTS: Record<string, [keyof BatchSettings, number, number]> = {
  OTEL_BSP_SCHEDULE_DELAY: ['scheduledDelayMillis', 5000, 0],
  OTEL_BSP_MAX_QUEUE_SIZE: ['maxQueueSize', 2048, 1],
  OTEL_BSP_MAX_EXPORT_BATCH_SIZE: ['maxExportBatchSize', 512, 1],
  OTEL_BSP_EXPORT_TIMEOUT: ['exportTimeoutMillis', 30000, 1],
};

const PROTOCOLS: readonly string[] = ['http/protobuf', 'http/json'];
const SAMPLERS: readonly string[] = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
];

function invalid(variable: string, message: string, hint?: string): NoemaError {
  return new NoemaError('CONFIG_INVALID', `${variable} is invalid: ${message}`, {
    details: { variable },
    ...(hint ? { hint } : {}),
  });
}

function set(env: Env, name: string): string | undefined {
  const v = env[name]?.trim();
  return v ? v : undefined;
}

/** `k=v,k2=v2` (W3C Baggage-like, values percent-decoded), as OTEL_EXPORTER_OTLP_HEADERS and OTEL_RESOURCE_ATTRIBUTES are. */
export function keyValueList(variable: string, raw: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!raw) return out;
  for (const part of raw.split(',')) {
    if (!part.trim()) continue;
    const eq = part.indexOf('=');
    if (eq <= 0) throw invalid(variable, `"${part.trim()}" is not key=value`);
    try {
      out[decodeURIComponent(part.slice(0, eq).trim())] = decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      throw invalid(variable, `"${part.trim()}" is not percent-encoded correctly`);
    }
  }
  return out;
}

function samplerOf(env: Env): SamplerSetting {
  const name = (set(env, 'OTEL_TRACES_SAMPLER') ?? 'parentbased_always_on').toLowerCase();
  if (!SAMPLERS.includes(name))
    throw invalid('OTEL_TRACES_SAMPLER', `"${name}" is not a sampler`, `use one of: ${SAMPLERS.join(', ')}`);
  if (name === 'traceidratio' || name === 'parentbased_traceidratio') {
    const arg = set(env, 'OTEL_TRACES_SAMPLER_ARG');
    const ratio = arg === undefined ? 1 : Number(arg);
    if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1)
      throw invalid('OTEL_TRACES_SAMPLER_ARG', `"${arg}" is not a ratio between 0 and 1`);
    return { kind: name, ratio };
  }
  return { kind: name as 'always_on' };
}

function batchOf(env: Env): BatchSettings {
  const out = {} as BatchSettings;
  for (const [variable, [field, fallback, min]] of Object.entries(BATCH_DEFAULTS)) {
    const raw = set(env, variable);
    const n = raw === undefined ? fallback : Number(raw);
    if (!Number.isSafeInteger(n) || n < min)
      throw invalid(variable, `"${raw}" is not an integer of at least ${min}`);
    out[field] = n;
  }
  if (out.maxExportBatchSize > out.maxQueueSize)
    throw invalid(
      'OTEL_BSP_MAX_EXPORT_BATCH_SIZE',
      `${out.maxExportBatchSize} is more than OTEL_BSP_MAX_QUEUE_SIZE (${out.maxQueueSize})`,
    );
  return out;
}

/** The signal's own variable when set (`OTEL_EXPORTER_OTLP_TRACES_<name>`), else the general one. */
function exporterVariable(env: Env, name: string): { variable: string; value: string | undefined } {
  const traces = `OTEL_EXPORTER_OTLP_TRACES_${name}`;
  const variable = set(env, traces) !== undefined ? traces : `OTEL_EXPORTER_OTLP_${name}`;
  return { variable, value: set(env, variable) };
}

function timeoutOf(env: Env): number {
  const { variable, value } = exporterVariable(env, 'TIMEOUT');
  const ms = value === undefined ? 10_000 : Number(value);
  if (!Number.isSafeInteger(ms) || ms < 1)
    throw invalid(variable, `"${value}" is not a whole number of milliseconds of at least 1`);
  return ms;
}

function compressionOf(env: Env): 'gzip' | 'none' {
  const { variable, value } = exporterVariable(env, 'COMPRESSION');
  const name = (value ?? 'none').toLowerCase();
  if (name !== 'gzip' && name !== 'none')
    throw invalid(variable, `"${value}" is not supported`, 'use gzip or none');
  return name;
}

/**
 * The tracing settings, or null when tracing is off: OTEL_SDK_DISABLED=true, OTEL_TRACES_EXPORTER=none,
 * or neither OTEL_EXPORTER_OTLP_TRACES_ENDPOINT nor OTEL_EXPORTER_OTLP_ENDPOINT set. Throws
 * CONFIG_INVALID naming the variable for a value it cannot use.
 */
export function traceSettings(env: Env): TraceSettings | null {
  if (set(env, 'OTEL_SDK_DISABLED')?.toLowerCase() === 'true') return null;
  const exporter = set(env, 'OTEL_TRACES_EXPORTER')?.toLowerCase();
  if (exporter === 'none') return null;
  if (exporter !== undefined && exporter !== 'otlp')
    throw invalid('OTEL_TRACES_EXPORTER', `"${exporter}" is not supported`, 'use otlp or none');
  const signal = set(env, 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT');
  const base = set(env, 'OTEL_EXPORTER_OTLP_ENDPOINT');
  if (!signal && !base) return null;
  const variable = signal ? 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT' : 'OTEL_EXPORTER_OTLP_ENDPOINT';
  // The signal's own endpoint is used as it is; the base one gets the signal's path appended.
  const url = signal ?? `${base!.replace(/\/+$/, '')}/v1/traces`;
  try {
    const u = new URL(url);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error('not http(s)');
  } catch {
    throw invalid(variable, `"${signal ?? base}" is not an http(s) URL`);
  }
  const protocolVar = set(env, 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL')
    ? 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL'
    : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const protocol = set(env, protocolVar) ?? 'http/protobuf';
  if (!PROTOCOLS.includes(protocol))
    throw invalid(protocolVar, `"${protocol}" is not supported`, 'use http/protobuf or http/json');
  const resource = keyValueList('OTEL_RESOURCE_ATTRIBUTES', set(env, 'OTEL_RESOURCE_ATTRIBUTES'));
  resource['service.name'] = set(env, 'OTEL_SERVICE_NAME') ?? resource['service.name'] ?? 'noema';
  return {
    url,
    protocol: protocol as OtlpProtocol,
    headers: {
      ...keyValueList('OTEL_EXPORTER_OTLP_HEADERS', set(env, 'OTEL_EXPORTER_OTLP_HEADERS')),
      ...keyValueList('OTEL_EXPORTER_OTLP_TRACES_HEADERS', set(env, 'OTEL_EXPORTER_OTLP_TRACES_HEADERS')),
    },
    resource,
    sampler: samplerOf(env),
    captureContent: set(env, 'OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT')?.toLowerCase() === 'true',
    batch: batchOf(env),
    timeoutMillis: timeoutOf(env),
    compression: compressionOf(env),
  };
}
