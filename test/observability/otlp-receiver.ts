/**
 * A real OTLP/HTTP trace receiver for tests: POST /v1/traces in http/json (decoded as the OTLP JSON
 * encoding) or http/protobuf (decoded by protobufjs as an `ExportTraceServiceRequest`), gzip-compressed
 * or not (`content-encoding`), and the spans flattened with their attributes as values.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import protobuf from 'protobufjs';
import type { SpanSpec } from '../../src/observability/span-export.ts';

/**
 * The messages of opentelemetry-proto (`collector/trace/v1/trace_service.proto`, `trace/v1`,
 * `common/v1`, `resource/v1`) a span export carries, with their field numbers and wire types; fields
 * not listed here (events, links, dropped counts) are skipped as unknown. No package on the npm
 * registry ships the official `.proto` files any more (`@opentelemetry/otlp-transformer` now
 * encodes by hand and decodes only responses), so the subset is declared here.
 */
const OTLP_TRACE_PROTO = `
syntax = "proto3";
package otlp;
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; string schema_url = 3; }
message Resource { repeated KeyValue attributes = 1; }
message ScopeSpans { InstrumentationScope scope = 1; repeated Span spans = 2; string schema_url = 3; }
message InstrumentationScope { string name = 1; string version = 2; }
message Span {
  bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4;
  string name = 5; int32 kind = 6; fixed64 start_time_unix_nano = 7; fixed64 end_time_unix_nano = 8;
  repeated KeyValue attributes = 9; Status status = 15; fixed32 flags = 16;
}
message Status { string message = 2; int32 code = 3; }
message KeyValue { string key = 1; AnyValue value = 2; }
message AnyValue {
  oneof value {
    string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4;
    ArrayValue array_value = 5; KeyValueList kvlist_value = 6; bytes bytes_value = 7;
  }
}
message ArrayValue { repeated AnyValue values = 1; }
message KeyValueList { repeated KeyValue values = 1; }
`;

const ExportTraceServiceRequest = protobuf
  .parse(OTLP_TRACE_PROTO)
  .root.lookupType('otlp.ExportTraceServiceRequest');

/** A protobuf export request as the OTLP JSON encoding has it (ids in hex, 64-bit integers as strings). */
export function decodeOtlpProtobuf(body: Uint8Array): OtlpJsonRequest {
  const message = ExportTraceServiceRequest.decode(body);
  const doc = ExportTraceServiceRequest.toObject(message, {
    longs: String,
    bytes: String,
  }) as OtlpJsonRequest;
  const hex = (b64: string | undefined) => Buffer.from(b64 ?? '', 'base64').toString('hex');
  for (const rs of doc.resourceSpans ?? [])
    for (const ss of rs.scopeSpans ?? [])
      for (const s of ss.spans ?? []) {
        s.traceId = hex(s.traceId);
        s.spanId = hex(s.spanId);
        s.parentSpanId = hex(s.parentSpanId);
      }
  return doc;
}

/** An export request in the OTLP JSON encoding's shape (the fields these tests read). */
interface OtlpJsonRequest {
  resourceSpans?: Array<{
    resource?: { attributes?: Array<{ key: string; value: AnyValue }> };
    scopeSpans?: Array<{
      spans?: Array<{
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        startTimeUnixNano: string;
        endTimeUnixNano: string;
        status?: { code?: number; message?: string };
        attributes?: Array<{ key: string; value: AnyValue }>;
        flags?: number;
      }>;
    }>;
  }>;
}

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  /** Milliseconds since the epoch (from the unix-nanosecond fields). */
  start: number;
  end: number;
  status: { code?: number; message?: string };
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
  /** The span's flags: W3C trace flags, and whether its parent is remote (see PARENT_IS_REMOTE). */
  flags: number;
}

/** `flags` bits: the exporter said whether the parent is remote, and it is. */
export const PARENT_REMOTE_KNOWN = 0x100;
export const PARENT_IS_REMOTE = 0x200;

export interface OtlpReceiver {
  url: string;
  spans: ReceivedSpan[];
  requests: Array<{ path: string; headers: IncomingHttpHeaders; body: Buffer }>;
  /** Answer every request with this status from now on (a collector refusing). */
  failWith(status: number | null): void;
  /** Read requests but answer none from now on (a collector that hangs), or answer again (false). */
  hang(on: boolean): void;
  close(): Promise<void>;
}

type AnyValue = {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: AnyValue[] };
};

function anyValue(v: AnyValue): unknown {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(anyValue);
  return undefined;
}

function attributes(list: Array<{ key: string; value: AnyValue }> | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((a) => [a.key, anyValue(a.value)]));
}

const ms = (nanos: string | number) => Number(BigInt(nanos) / 1_000_000n);

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const requests: OtlpReceiver['requests'] = [];
  let failing: number | null = null;
  let hanging = false;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const sent = Buffer.concat(chunks);
      requests.push({ path: req.url ?? '', headers: req.headers, body: sent });
      if (hanging) return;
      const body = req.headers['content-encoding'] === 'gzip' ? gunzipSync(sent) : sent;
      if (failing !== null) {
        res.writeHead(failing).end();
        return;
      }
      const json = (req.headers['content-type'] ?? '').startsWith('application/json');
      const doc: OtlpJsonRequest = json ? JSON.parse(body.toString('utf8')) : decodeOtlpProtobuf(body);
      for (const rs of doc.resourceSpans ?? []) {
        const resource = attributes(rs.resource?.attributes);
        for (const ss of rs.scopeSpans ?? []) {
          for (const s of ss.spans ?? []) {
            spans.push({
              traceId: s.traceId,
              spanId: s.spanId,
              parentSpanId: s.parentSpanId ?? '',
              name: s.name,
              kind: s.kind,
              start: ms(s.startTimeUnixNano),
              end: ms(s.endTimeUnixNano),
              status: s.status ?? {},
              attributes: attributes(s.attributes),
              resource,
              flags: s.flags ?? 0,
            });
          }
        }
      }
      if (json) res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      else res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    requests,
    failWith(status) {
      failing = status;
    },
    hang(on) {
      hanging = on;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A finished span numbered `i` (name `s<i>`, attribute `noema.step` i), for tests of the export itself. */
export const numberedSpan = (i: number): SpanSpec => ({
  name: `s${i}`,
  kind: 'internal',
  traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
  spanId: `00f067aa0ba902b${i}`,
  parent: null,
  start: 1,
  end: 2,
  attributes: { 'noema.step': i },
});
