/**
 * Seed 003's events to clients: a flowchart run's engine events (the shared run feeds) mapped to
 * `flowchart.node.updated`, `flowchart.run.updated` and `flowchart:node_artifact:persisted`, in order,
 * over SSE (`GET /api/flowcharts/:flowchart_id/runs/:flowchart_run_id/events`, resumable with
 * Last-Event-ID: ids are the engine's per-run seq) and Socket.IO (rooms per flowchart and per run).
 */
import type { Server } from 'socket.io';
import { errorEnvelope, invalidInput, NoemaError } from '../../../core/errors.ts';
import { isUuid } from '../../../core/ids.ts';
import { getRunStatus } from '../../../engine/index.ts';
import { type FlowEvent, readFlowRunRow, toFlowEvent } from '../../../runtimes/flow/index.ts';
import type { Store } from '../../../store/store.ts';
import type { FeedSink, RunFeeds, StreamEvent } from '../events/feed.ts';
import { lastEventIdOf } from '../events/last-event-id.ts';
import type { AppServices, Route } from '../route.ts';

type RunRef = { flowchart_id: string; flowchart_run_id: string; created_at: string };

/** A feed sink that maps engine events to flow events (async reads, delivered in order). */
export function flowSink(
  store: Store,
  run: RunRef,
  out: { event(e: FlowEvent, id: number): void; resync: FeedSink['resync'] },
): FeedSink {
  let chain: Promise<void> = Promise.resolve();
  return {
    event(event: StreamEvent, id: number) {
      chain = chain.then(async () => {
        const fe = await toFlowEvent(store, run, event).catch(() => null);
        if (fe) out.event(fe, id);
      });
    },
    resync(info) {
      chain = chain.then(() =>
        out.resync({ ...info, href: `/api/flowcharts/${run.flowchart_id}/runs/${run.flowchart_run_id}` }),
      );
    },
  };
}

async function runOf(store: Store, flowchart_id: string, flowchart_run_id: string): Promise<RunRef> {
  const unknown = new NoemaError('UNKNOWN_FLOWCHART_RUN', `no flowchart run "${flowchart_run_id}"`, {
    status: 404,
  });
  if (!isUuid(flowchart_run_id)) throw unknown;
  const row = await readFlowRunRow(store, flowchart_run_id);
  if (row.flowchart_id !== flowchart_id) throw unknown;
  return { flowchart_id, flowchart_run_id, created_at: row.created_at };
}

export function flowEventRoutes(app: AppServices): Route[] {
  return [
    {
      method: 'GET',
      path: '/api/flowcharts/:flowchart_id/runs/:flowchart_run_id/events',
      summary: "A flowchart run's seed-003 events as Server-Sent Events, resumable with Last-Event-ID",
      async handle({ c, params }) {
        if (!app.events)
          throw new NoemaError('STORE_UNAVAILABLE', 'this server streams no events', { status: 503 });
        const lastId = lastEventIdOf(c);
        const run = await runOf(app.store, params.flowchart_id ?? '', params.flowchart_run_id ?? '');
        const feeds = app.events.feeds;
        // The SSE writer names each event by `type`: give flow events their seed names.
        const mapped: Pick<RunFeeds, 'join'> = {
          join: (run_id, sink, last) =>
            feeds.join(
              run_id,
              flowSink(app.store, run, {
                event: (e, id) => sink.event({ type: e.event, ...e } as unknown as StreamEvent, id),
                resync: (info) => sink.resync(info),
              }),
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

/**
 * Socket.IO: a client emits `flowchart:subscribe` `{ flowchart_id, flowchart_run_id }` (acked with
 * `{ ok, flowchart_id, flowchart_run_id }` or `{ ok: false, error }`) and joins the rooms
 * `flowchart:<flowchart_id>` and `flowchart_run:<flowchart_run_id>`; each seed event is emitted under
 * its own name (`flowchart.node.updated`, …) with `id`, once per socket. `flowchart:unsubscribe`
 * leaves. Runs started through this server's API are watched from their start, so a client in a
 * flowchart's room sees its new runs; a run's feed is left once the run finished.
 */
export class FlowEventHub {
  readonly #store: Store;
  readonly #feeds: RunFeeds;
  readonly #watched = new Map<string, Promise<() => void>>();
  #io: Server | null = null;

  constructor(options: { store: Store; feeds: RunFeeds }) {
    this.#store = options.store;
    this.#feeds = options.feeds;
  }

  /** Starts emitting the run's events to its rooms (idempotent). */
  watch(run: RunRef): Promise<void> {
    let leave = this.#watched.get(run.flowchart_run_id);
    if (!leave) {
      const rooms = [flowchartRunRoom(run.flowchart_run_id), flowchartRoom(run.flowchart_id)];
      leave = this.#feeds.join(
        run.flowchart_run_id,
        flowSink(this.#store, run, {
          event: (e, id) => {
            this.#io?.to(rooms).emit(e.event, { ...e, id });
            if (
              e.event === 'flowchart.run.updated' &&
              ['completed', 'failed', 'cancelled'].includes(e.status)
            )
              void this.#leave(run.flowchart_run_id);
          },
          resync: (info) => this.#io?.to(rooms).emit('resync', info),
        }),
      );
      this.#watched.set(run.flowchart_run_id, leave);
      leave.catch(() => this.#watched.delete(run.flowchart_run_id));
    }
    return leave.then(() => undefined);
  }

  async #leave(flowchart_run_id: string): Promise<void> {
    const leave = this.#watched.get(flowchart_run_id);
    this.#watched.delete(flowchart_run_id);
    (await leave)?.();
  }

  attach(io: Server): void {
    this.#io = io;
    io.on('connection', (socket) => {
      socket.on('flowchart:subscribe', async (msg: unknown, ack?: (answer: unknown) => void) => {
        const reply = typeof ack === 'function' ? ack : () => {};
        try {
          const { flowchart_id, flowchart_run_id } = (msg ?? {}) as Record<string, unknown>;
          if (typeof flowchart_id !== 'string' || typeof flowchart_run_id !== 'string')
            throw invalidInput('flowchart:subscribe needs { flowchart_id, flowchart_run_id }');
          const run = await runOf(this.#store, flowchart_id, flowchart_run_id);
          // A finished run emits nothing more: no feed to hold open for it.
          const { status } = await getRunStatus(this.#store, flowchart_run_id);
          if (!['completed', 'failed', 'cancelled'].includes(status)) await this.watch(run);
          await socket.join([flowchartRunRoom(flowchart_run_id), flowchartRoom(flowchart_id)]);
          reply({ ok: true, flowchart_id, flowchart_run_id });
        } catch (err) {
          reply({ ok: false, error: errorEnvelope(err, { request_id: socket.id }) });
        }
      });
      socket.on('flowchart:unsubscribe', async (msg: unknown) => {
        const { flowchart_id, flowchart_run_id } = (msg ?? {}) as Record<string, unknown>;
        if (typeof flowchart_run_id === 'string') await socket.leave(flowchartRunRoom(flowchart_run_id));
        if (typeof flowchart_id === 'string') await socket.leave(flowchartRoom(flowchart_id));
      });
    });
  }

  async close(): Promise<void> {
    const all = [...this.#watched.values()];
    this.#watched.clear();
    for (const leave of await Promise.allSettled(all)) if (leave.status === 'fulfilled') leave.value();
  }
}
