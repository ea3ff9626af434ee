/**
 * Encoding events into NOTIFY payloads. PostgreSQL caps a payload at 8000 BYTES (not characters: one
 * CJK character is 3 bytes), so events are batched under a budget, large bodies are abbreviated, and
 * an event that does not fit even abbreviated travels as a gap marker (`{ run_id, seq }`) so remote
 * subscribers learn they missed it.
 */
import { clampString } from '../../core/budget.ts';
import type { EngineEvent } from '../engine.ts';

const MAX_NOTIFY_BYTES = 7_000;
// Strings kept in an abbreviated event; ≤ 6 bytes per UTF-16 unit once JSON-escaped.
const ABBREVIATED_STRING_UNITS = 500;

/** One NOTIFY payload: events of one origin process, and events it could not send. */
export interface NotifyMessage {
  origin: string;
  events: EngineEvent[];
  gaps?: Array<{ run_id: string; seq: number }>;
}

export interface EncodedBatches {
  payloads: string[];
  /** Events that did not fit even abbreviated (sent as gap markers). */
  dropped: EngineEvent[];
}

/** How every payload `encodeBatches(origin, …)` makes begins: a receiver knows its own without parsing. */
export function payloadHead(origin: string): string {
  return `{"origin":${JSON.stringify(origin)},`;
}

export function encodeBatches(origin: string, events: readonly EngineEvent[]): EncodedBatches {
  const payloads: string[] = [];
  const dropped: EngineEvent[] = [];
  // Each event's JSON, kept from measuring it: the payload is `JSON.stringify` of a NotifyMessage
  // (keys in its order) assembled from them, not every event stringified a second time.
  let batch: string[] = [];
  let gaps: Array<{ run_id: string; seq: number }> = [];
  let size = 0;
  const head = `${payloadHead(origin)}"events":[`;
  const push = () => {
    if (batch.length > 0 || gaps.length > 0)
      payloads.push(`${head}${batch.join(',')}]${gaps.length > 0 ? `,"gaps":${JSON.stringify(gaps)}` : ''}}`);
    batch = [];
    gaps = [];
    size = 0;
  };
  for (const e of events) {
    let json = JSON.stringify(e);
    let bytes = Buffer.byteLength(json, 'utf8');
    if (bytes > MAX_NOTIFY_BYTES - 100) {
      // Large bodies stay in the store (artifacts by artifact_id); remote listeners get the event
      // without them, marked `truncated`, so they know to read the store rather than trust the null.
      json = JSON.stringify(abbreviate(e));
      bytes = Buffer.byteLength(json, 'utf8');
    }
    if (bytes > MAX_NOTIFY_BYTES - 100) {
      dropped.push(e);
      // A gap marker is a run id (≤ a few hundred bytes) and a number.
      const marker = { run_id: e.run_id, seq: e.seq };
      const markerBytes = Buffer.byteLength(JSON.stringify(marker), 'utf8') + 1;
      if (size + markerBytes > MAX_NOTIFY_BYTES) push();
      gaps.push(marker);
      size += markerBytes;
      continue;
    }
    if (size + bytes > MAX_NOTIFY_BYTES) push();
    batch.push(json);
    size += bytes + 1;
  }
  push();
  return { payloads, dropped };
}

function abbreviate(e: EngineEvent): EngineEvent {
  const clamp = (s: string) => clampString(s, ABBREVIATED_STRING_UNITS).text;
  switch (e.type) {
    case 'artifact.persisted':
      return { ...e, artifact: null, truncated: true };
    case 'node.updated':
      return { ...e, data: null, truncated: true };
    case 'node.finished':
      return e.error === undefined ? e : { ...e, error: clamp(e.error), truncated: true };
    case 'run.updated': {
      if (!e.error) return e;
      const { details: _d, ...error } = e.error;
      return { ...e, error: { ...error, message: clamp(error.message) }, truncated: true };
    }
    default:
      return e;
  }
}
