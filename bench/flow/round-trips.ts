/**
 * `node bench/flow/round-trips.ts`: PostgreSQL round trips of one run of the flow bench's 20-node
 * flowchart, beside its calls made with `invokeSource` alone, counted at the `pg` client — a query
 * sent while none of its connection's is in flight starts one (on the pipelined connection, the
 * queries sent before the first answer share it) — with the COMMITs that wait for the disk and those
 * that do not (`synchronous_commit = off`), and the socket writes (system calls) that sent them.
 * BENCH_FLOW_TRACE=1 lists a run's queries, `RT` marking each that starts a round trip.
 */
import { Socket } from 'node:net';
import { uuidv7 } from '../../src/core/ids.ts';
import { createFlowchart, runFlowchart } from '../../src/runtimes/flow/index.ts';
import { invokeSource } from '../../src/sources/index.ts';
import { flowKit } from '../../src/testing/flow-kit.ts';
import { countPgRoundTrips, type PgCounts } from '../../src/testing/pg-round-trips.ts';
import { openTestStore, testPostgresUrl } from '../../src/testing/stores.ts';
import { callsOf, SCRIPT, twentyNodes } from './graph.ts';

const tracing = process.env.BENCH_FLOW_TRACE === '1';
const { counts: pgCounts, lines } = countPgRoundTrips(tracing);
type Counts = PgCounts & { socketWrites: number };
// The system calls that send to the server: a write (or a write of several buffers) on a socket to it.
const counts = pgCounts as Counts;
counts.socketWrites = 0;
const port = Number(new URL(testPostgresUrl()).port || 5432);
for (const m of ['_write', '_writev'] as const) {
  const original = Socket.prototype[m] as (...args: unknown[]) => unknown;
  Socket.prototype[m] = function (this: Socket, ...args: unknown[]) {
    if (this.remotePort === port) counts.socketWrites++;
    return original.apply(this, args);
  } as never;
}

const RUNS = 5;
const { store, dispose } = await openTestStore('postgres');
const kit = await flowKit(store, SCRIPT);
try {
  const fc = await createFlowchart(store, { name: 'bench', graph: twentyNodes() });
  let id = '';
  for (let i = 0; i < 3; i++)
    id = (await runFlowchart(store, kit.engine, fc.flowchart_id, { input: { go: true } })).flowchart_run_id;
  const calls = await callsOf(store, id);
  const per = (a: Counts, b: Counts) =>
    Object.entries(a)
      .map(([k, v]) => `${k} ${(v - b[k as keyof Counts]) / RUNS}`)
      .join(', ');
  let before = { ...counts };
  lines.length = 0;
  for (let i = 0; i < RUNS; i++)
    await runFlowchart(store, kit.engine, fc.flowchart_id, { input: { go: true } });
  const run = lines.slice(0, lines.length / RUNS);
  console.log(`flowchart run: ${per(counts, before)}`);
  before = { ...counts };
  for (let i = 0; i < RUNS; i++) {
    const run_id = uuidv7();
    for (const { call } of calls)
      await invokeSource(store, { ...call, links: { ...call.links, run_id }, env: kit.env });
  }
  console.log(
    `its ${calls.length} calls alone: ${per(counts, before)} (+ one autocommit per call's running row)`,
  );
  if (tracing) console.log(run.join('\n'));
} finally {
  await kit.close();
  await dispose();
}
