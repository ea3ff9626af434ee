/**
 * Operational warnings for failures that must not fail the caller (fan-out, listeners, reconnects):
 * a Node process warning — printed on stderr by default, observable with `process.on('warning')` —
 * named `NoemaWarning` with a stable code. Callers warn once per incident, not once per event.
 */
import { incidentLatch } from './incident-log.ts';

export type WarningCode =
  | 'NOEMA_EVENT_TOO_LARGE'
  | 'NOEMA_EVENT_NOTIFY_FAILED'
  | 'NOEMA_EVENT_MALFORMED'
  | 'NOEMA_EVENT_LISTENER_FAILED'
  | 'NOEMA_EVENT_FLUSH_FAILED'
  | 'NOEMA_EVENT_SEQ_EXHAUSTED'
  | 'NOEMA_LISTEN_LOST'
  | 'NOEMA_LISTEN_RESTORED'
  | 'NOEMA_OTEL_EXPORT_FAILED'
  | 'NOEMA_OTEL_OBSERVER_FAILED';

export function warn(code: WarningCode, message: string, details?: Record<string, unknown>): void {
  const text = details === undefined ? message : `${message} ${JSON.stringify(details)}`;
  process.emitWarning(text, { type: 'NoemaWarning', code });
}

/**
 * A failure that may repeat (every step's NOTIFY refused, a flood of unreadable notifications): the
 * first failure is logged, repeats stay silent until `ok()` reports recovery, so one incident
 * is one line however long it lasts.
 */
export class Incident {
  readonly #latch: ReturnType<typeof incidentLatch<[string, Record<string, unknown>?]>>;

  constructor(code: WarningCode) {
    this.#latch = incidentLatch((message: string, details?: Record<string, unknown>) =>
      warn(code, `${message} (repeats are not logged until it recovers)`, details),
    );
  }

  fail(message: string, details?: Record<string, unknown>): void {
    this.#latch.fail(message, details);
  }

  ok(): void {
    this.#latch.ok();
  }
}
