/**
 * Seed 003's events to clients: a flowchart run's engine events (the shared run feeds) mapped to
 * `flowchart.node.updated`, `flowchart.run.updated` and `flowchart:node_artifact:persisted`, in order,
 * over SSE (`GET /api/flowcharts/:flowchart_id/runs/:flowchart_run_id/events`, resumable with
 * Last-Event-ID: ids are the engine's per-run seq) and Socket.IO (`flowchart:subscribe`: the run's
 * stored events replayed, then live, through one fan-out per run, `fanout.ts`).
 */
import type { Server, Socket } from 'socket.io';
import { errorEnvelope, invalidInput, NoemaError } from '../../../core/errors.ts';
import { hasControlChars, isUuid } from '../../../core/ids.ts';
import type { Engine } from '../../../engine/index.ts';
import { getFlowchart, readFlowRunRow } from '../../../runtimes/flow/index.ts';
import type { Store } from '../../../store/store.ts';
import type { RunFeeds, StreamEvent } from '../events/feed.ts';
import { lastEventIdOf } from '../events/last-event-id.ts';
import type { AppServices, Route } from '../route.ts';
import { FlowRunFanout, type FlowRunRef, type FlowSubscriber } from './fanout.ts';

type RunRef = FlowRunRef;

async function runOf(store: Store, flowchart_id: string, flowchart_run_id: string): Promise<RunRef> {
  const unknown = new NoemaError('UNKNOWN_FLOWCHART_RUN', `no flowchart run "${flowchart_run_id}"`, {
    status: 404,
  });
  if (!isUuid(flowchart_run_id)) throw unknown;
  const row = await readFlowRunRow(store, flowchart_run_id);
  if (row.flowchart_id !== flowchart_id) throw unknown;
  return { flowchart_id, flowchart_run_id, created_at: row.created_at };
}

export function flowEventRoutes(app: AppServices & { flowEvents?: FlowEventHub }): Route[] {
  return [
    {
      method: 'GET',
      path: '/api/flowcharts/:flowchart_id/runs/:flowchart_run_id/events',
      summary:
        "A flowchart run's seed-003 events as Server-Sent Events: its stored events, then live; resumable with Last-Event-ID",
      async handle({ c, params }) {
        const hub = app.flowEvents;
        if (!app.events || !hub)
          throw new NoemaError('STORE_UNAVAILABLE', 'this server streams no events', { status: 503 });
        const lastId = lastEventIdOf(c);
        const run = await runOf(app.store, params.flowchart_id ?? '', params.flowchart_run_id ?? '');
        // The SSE writer names each event by `type`: give flow events their seed names.
        const mapped: Pick<RunFeeds, 'join'> = {
          join: (_run_id, sink, last) =>
            hub.subscribeRun(
              run,
              {
                event: (e, id, replayed) =>
                  sink.event(
                    { type: e.event, ...e, ...(replayed ? { replayed } : {}) } as unknown as StreamEvent,
                    id,
                  ),
                resync: (info) =>
                  sink.resync({
                    ...info,
                    href: `/api/flowcharts/${run.flowchart_id}/runs/${run.flowchart_run_id}`,
                  }),
              },
              last,
            ),
        };
        return app.events.sse.respond(mapped, run.flowchart_run_id, lastId, c.req.raw.signal);
      },
    },
  ];
}

export const flowchartRoom = (flowchart_id: string) => `flowchart:${flowchart_id}`;
export const flowchartRunRoom = (flowchart_run_id: string) => `flowchart_run:${flowchart_run_id}`;

/** How long a finished run's fan-out is kept, so a client reconnecting with `last_event_id` resumes exactly. */
const KEEP_FINISHED_MS = 30_000;

function flowId(v: unknown, name: string): string {
  if (typeof v !== 'string' || v.length === 0 || v.length > 256 || hasControlChars(v))
    throw invalidInput(
      `flowchart:subscribe needs { flowchart_id, flowchart_run_id?, last_event_id? }: bad ${name}`,
    );
  return v;
}

/**
 * Socket.IO: a client emits `flowchart:subscribe` `{ flowchart_id, flowchart_run_id?, last_event_id? }`
 * (acked with `{ ok, flowchart_id, flowchart_run_id }` or `{ ok: false, error }`). With a run, the run's
 * stored events are replayed to that socket (`replayed: true`; from the start, or after
 * `last_event_id`), then its live events follow, each once. Every subscription joins the room
 * `flowchart:<flowchart_id>`, which gets the events of the flowchart's runs this server watches (runs
 * started through its API or claimed by it, from their start; runs a socket subscribed to). Each seed
 * event is emitted under its own name (`flowchart.node.updated`, …) with `id` (the engine event's seq;
 * null for an event read back from the store). `flowchart:unsubscribe` leaves.
 */
export class FlowEventHub {
  readonly #store: Store;
  readonly #engine: Engine;
  readonly #feeds: RunFeeds;
  readonly #fanouts = new Map<string, FlowRunFanout>();
  #io: Server | null = null;

  constructor(options: { store: Store; feeds: RunFeeds }) {
    this.#store = options.store;
    this.#engine = options.feeds.engine;
    this.#feeds = options.feeds;
  }

  /** Starts sending the run's events to its flowchart's room and subscribers (idempotent). */
  watch(run: FlowRunRef): Promise<void> {
    return this.#fanout(run).start(this.#feeds, () => this.#finished(run.flowchart_run_id));
  }

  #fanout(run: FlowRunRef): FlowRunFanout {
    let fanout = this.#fanouts.get(run.flowchart_run_id);
    if (!fanout) {
      const room = flowchartRoom(run.flowchart_id);
      // Sockets subscribed to the run get it from the fan-out itself: the room skips them.
      const except = flowchartRunRoom(run.flowchart_run_id);
      fanout = new FlowRunFanout({ store: this.#store, engine: this.#engine }, run, (e, id) =>
        this.#io
          ?.to(room)
          .except(except)
          .emit(e.event, { ...e, id }),
      );
      this.#fanouts.set(run.flowchart_run_id, fanout);
    }
    return fanout;
  }

  /**
   * Sends `out` the run's stored events (after `lastEventId`, when this server sent it), then its live
   * events, each once (`FlowRunFanout.subscribe`). Returns `leave`.
   */
  async subscribeRun(run: FlowRunRef, out: FlowSubscriber, lastEventId?: number): Promise<() => void> {
    const fanout = this.#fanout(run);
    if (!fanout.done) await this.watch(run);
    return fanout.subscribe(out, lastEventId);
  }

  #finished(flowchart_run_id: string): void {
    const fanout = this.#fanouts.get(flowchart_run_id);
    if (!fanout) return;
    void fanout.stop();
    setTimeout(() => {
      if (this.#fanouts.get(flowchart_run_id) === fanout) this.#fanouts.delete(flowchart_run_id);
    }, KEEP_FINISHED_MS).unref();
  }

  async #subscribe(socket: Socket, leaves: Map<string, () => void>, msg: unknown) {
    const { flowchart_id, flowchart_run_id, last_event_id } = (msg ?? {}) as Record<string, unknown>;
    const fid = flowId(flowchart_id, 'flowchart_id');
    if (
      last_event_id !== undefined &&
      (!Number.isSafeInteger(last_event_id) || (last_event_id as number) < 0)
    )
      throw invalidInput('last_event_id must be an event id (a non-negative integer)');
    if (flowchart_run_id === undefined || flowchart_run_id === null) {
      if (last_event_id !== undefined) throw invalidInput('last_event_id needs a flowchart_run_id');
      await getFlowchart(this.#store, fid);
      await socket.join(flowchartRoom(fid));
      return { ok: true, flowchart_id: fid, flowchart_run_id: null };
    }
    const run = await runOf(this.#store, fid, flowId(flowchart_run_id, 'flowchart_run_id'));
    leaves.get(run.flowchart_run_id)?.();
    // Joined before the fan-out holds this socket's live events: from here the room skips it.
    await socket.join([flowchartRunRoom(run.flowchart_run_id), flowchartRoom(fid)]);
    const leave = await this.subscribeRun(
      run,
      {
        event: (e, id, replayed) =>
          socket.emit(e.event, { ...e, id, ...(replayed ? { replayed: true } : {}) }),
        resync: (info) => socket.emit('resync', info),
      },
      last_event_id as number | undefined,
    );
    leaves.set(run.flowchart_run_id, leave);
    return { ok: true, flowchart_id: fid, flowchart_run_id: run.flowchart_run_id };
  }

  attach(io: Server): void {
    this.#io = io;
    io.on('connection', (socket) => {
      // This socket's run subscriptions: leave functions by run.
      const leaves = new Map<string, () => void>();
      socket.on('flowchart:subscribe', async (msg: unknown, ack?: (answer: unknown) => void) => {
        const reply = typeof ack === 'function' ? ack : () => {};
        try {
          reply(await this.#subscribe(socket, leaves, msg));
        } catch (err) {
          reply({ ok: false, error: errorEnvelope(err, { request_id: socket.id }) });
        }
      });
      socket.on('flowchart:unsubscribe', async (msg: unknown) => {
        const { flowchart_id, flowchart_run_id } = (msg ?? {}) as Record<string, unknown>;
        if (typeof flowchart_run_id === 'string') {
          leaves.get(flowchart_run_id)?.();
          leaves.delete(flowchart_run_id);
          await socket.leave(flowchartRunRoom(flowchart_run_id));
        }
        if (typeof flowchart_id === 'string') await socket.leave(flowchartRoom(flowchart_id));
      });
      socket.on('disconnect', () => {
        for (const leave of leaves.values()) leave();
        leaves.clear();
      });
    });
  }

  async close(): Promise<void> {
    const all = [...this.#fanouts.values()];
    this.#fanouts.clear();
    await Promise.allSettled(all.map((f) => f.stop()));
  }
}
