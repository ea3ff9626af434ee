/**
 * Numbering a run's events in one process: `seq` = claim epoch × 2^32 + index (see EngineEvent.seq),
 * and the events before they are numbered (`EventBody`, passed to an `Emit`).
 */
import { NoemaError } from '../../core/errors.ts';
import { warn } from '../../core/warn.ts';
import type { EngineEvent } from './types.ts';

/** An event before it is stamped: each member of the union without `seq`. */
export type EventBody = EngineEvent extends infer E
  ? E extends EngineEvent
    ? Omit<E, 'seq'>
    : never
  : never;

export type Emit = (event: EventBody) => void;

const INDEX_SPAN = 2 ** 32;
/** Claims a run may have before seqs would pass Number.MAX_SAFE_INTEGER. */
const MAX_EPOCH = 2 ** 21 - 1;

export function eventSeq(epoch: number, index: number): number {
  return epoch * INDEX_SPAN + index;
}

/** The next `seq` of one run's events in this process, from the claim epoch on. */
export class EventStamp {
  readonly #run_id: string;
  #epoch = -1;
  #index = 0;
  #overflowed = false;

  constructor(run_id: string) {
    this.#run_id = run_id;
  }

  /** Starts numbering at the claim epoch read (or written) with the claim. */
  claimed(epoch: number): void {
    if (epoch > MAX_EPOCH) {
      // Past 2^21 claims seqs would lose precision; they stop increasing across claims instead.
      warn('NOEMA_EVENT_SEQ_EXHAUSTED', 'noema: a run was claimed 2^21 times; its event seqs may repeat', {
        run_id: this.#run_id,
        epoch,
      });
    }
    this.#epoch = Math.min(epoch, MAX_EPOCH);
    this.#index = 0;
  }

  /** `body` with the next seq; null once this claim has used up its indexes (it is not sent). */
  stamp(body: EventBody): EngineEvent | null {
    if (this.#epoch < 0)
      throw new NoemaError(
        'INTERNAL',
        `events of run ${this.#run_id} stamped before its claim epoch is known`,
      );
    if (this.#index + 1 >= INDEX_SPAN) {
      if (!this.#overflowed) {
        this.#overflowed = true;
        warn(
          'NOEMA_EVENT_SEQ_EXHAUSTED',
          'noema: a run emitted 2^32 events in one claim; later events of this claim are not sent',
          {
            run_id: this.#run_id,
          },
        );
      }
      return null;
    }
    this.#index++;
    return { ...body, seq: eventSeq(this.#epoch, this.#index) } as EngineEvent;
  }
}
