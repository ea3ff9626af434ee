/**
 * Extra Socket.IO names for engine events. A runtime whose seed names its socket events (seed 003:
 * `flowchart.node.updated`, `flowchart.run.updated`, `flowchart:node_artifact:persisted`) registers a
 * translator from its surface file; sockets then get those events as well as the engine-typed ones.
 */
import type { StreamEvent } from './feed.ts';

export interface SocketMessage {
  name: string;
  payload: unknown;
}

/** Returns the extra messages for an event (an empty list or null when it is not the runtime's). */
export type EventTranslator = (event: StreamEvent, id: number) => SocketMessage[] | null;

const translators: EventTranslator[] = [];

export function registerEventTranslator(translator: EventTranslator): void {
  translators.push(translator);
}

/** The engine-typed message first, then every translator's. A failing translator is skipped. */
export function socketMessages(event: StreamEvent, id: number): SocketMessage[] {
  const out: SocketMessage[] = [{ name: event.type, payload: { ...event, id } }];
  for (const t of translators) {
    try {
      out.push(...(t(event, id) ?? []));
    } catch (err) {
      console.error(`noema: a Socket.IO event translator failed on ${event.type}:`, err);
    }
  }
  return out;
}
