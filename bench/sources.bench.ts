/**
 * Tracing overhead: the same streamed call to the scripted model, with the durable invocation
 * lifecycle (`invokeSource`: running rows before the call, finished rows with chunks and
 * artifacts after), without it (the LLM source's own plan/execute, no store), and between two raw
 * commits (the floor of a traced call: the running row committed before the request, the finished
 * row before the answer, on a bare connection; bench/sources/commit-floor.ts), in interleaved calls.
 * Target: the time tracing adds ≤ 1.5× the time the two raw commits add (p50s, same run). A
 * diagnostic row splits the added time: the two lifecycle transactions as they run inside traced
 * calls (timed around `store.transaction` in a separate pass, so the main rows are measured without
 * the wrapper), beside the floor's two commits timed inside its calls in the same pass.
 */

import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { uuidv7 } from '../src/core/ids.ts';
import { processLease } from '../src/sources/invocations/process-lease.ts';
import { PROGRESS_INTERVAL_MS } from '../src/sources/invocations/progress.ts';
import { finishInvocation, insertRunning } from '../src/sources/invocations/record.ts';
import { newStreamState } from '../src/sources/llm/stream.ts';
import { appendChunkBatch, llmFinishedColumns, llmRunningColumns } from '../src/sources/llm/trace.ts';
import { createRedactor } from '../src/sources/redact.ts';
import { openStore } from '../src/store/index.ts';
import type { Store } from '../src/store/store.ts';
import { openTestStore, selectedStores } from '../src/testing/stores.ts';
import { scriptedModel, startDevServices } from './lib/dev-services.ts';
import { type Bench, measure, summarize } from './lib/harness.ts';
import { REPLY, REQUEST, SCHEMA, tracingCalls } from './sources/calls.ts';
import { openCommitFloor } from './sources/commit-floor.ts';

/**
 * The lifecycle's store work alone — the two transactions `invokeSource` adds around a call
 * (the running row; the finished row with 15 chunks and an artifact) — without any network I/O.
 */
export function storeLifecycle(
  store: Store,
  /** The source and the result schema the calls name (stored already). */
  hashes: { source: string; schema: string },
  durability: 'immediate' | 'deferred' = 'deferred',
  request: typeof REQUEST = REQUEST,
): () => Promise<void> {
  const redactor = createRedactor([]);
  const lease = processLease(store);
  const chunks = Array.from({ length: 15 }, (_, i) => ({
    seq: i + 1,
    offset_ms: i,
    data: `{"choices":[{"delta":{"content":"${'x'.repeat(16)}"}}]}`,
  }));
  return async () => {
    const id = uuidv7();
    const started_at = Date.now();
    await store.transaction(async (tx) => {
      await lease.touch(tx, started_at);
      await insertRunning(
        tx,
        {
          source_invocation_id: id,
          source_hash: hashes.source,
          interface_name: 'llm_chat_completions',
          invocation_kind: 'llm_generation',
          links: {},
          input_schema_hash: null,
          output_schema_hash: hashes.schema,
          llm_call_id: id,
          request_json: request,
          metadata: { model: 'scripted' },
          started_at,
          owner_process_id: lease.processId,
        },
        redactor,
        llmRunningColumns(
          {
            endpoint_name: 'default',
            base_url: 'http://127.0.0.1/v1',
            model: 'scripted',
            schema_delivery: 'response_format',
            request_json: {
              model: 'scripted',
              ...request,
              response_format: { type: 'json_schema', json_schema: { name: 'r', schema: SCHEMA } },
            },
            messages_in_request: true,
            schema_in_store: true,
          },
          redactor,
        ),
      );
    });
    // As invokeSource does: once the registering transaction committed, later calls skip the
    // lease write (it is refreshed by a heartbeat, not per call).
    lease.committed(started_at);
    const ended_at = Date.now();
    await store.transaction(
      async (tx) => {
        await finishInvocation(
          tx,
          id,
          {
            status: 'succeeded',
            failure_class: null,
            failure_message: null,
            started_at,
            ended_at,
            validation_status: 'valid',
            response_json: REPLY,
            response_text: JSON.stringify(REPLY),
            response_headers: { 'content-type': 'text/event-stream' },
            http_status: 200,
          },
          redactor,
          (recorded) =>
            llmFinishedColumns(
              {
                http_status: 200,
                response_headers: { 'content-type': 'text/event-stream' },
                normalized_text: JSON.stringify(REPLY),
                stream: {
                  ...newStreamState(),
                  chunks,
                  persisted: 0,
                  rawText: JSON.stringify(REPLY),
                  finishReason: 'stop',
                  usage: { prompt_tokens: 10, completion_tokens: 20, total_tokens: 30 },
                  firstChunkAt: started_at,
                },
                artifacts: [{ kind: 'parsed_output', content: REPLY }],
                recorded,
                output_recorded: true,
              },
              redactor,
            ),
        );
      },
      { durability },
    );
  };
}

/** One progress write as invokeSource runs it mid-stream: a transaction appending 10 chunks. */
function chunkBatchWrite(store: Store): () => Promise<void> {
  const redactor = createRedactor([]);
  const state = newStreamState();
  const id = uuidv7();
  const ids = { source_invocation_id: id, llm_call_id: id };
  let offset = 0;
  return async () => {
    for (let i = 0; i < 10; i++) {
      state.chunks.push({
        seq: state.chunks.length + 1,
        offset_ms: offset++,
        data: `{"choices":[{"delta":{"content":"${'x'.repeat(16)}"}}]}`,
      });
    }
    await store.transaction((tx) => appendChunkBatch(tx, ids, state, redactor));
  };
}

/** A realistic prompt: a system message and a user message of about 8 KB of context in all. */
const LONG_REQUEST = {
  messages: [
    {
      role: 'system' as const,
      content: `You are Bob, in the park. ${'The park has paths and benches. '.repeat(60)}`,
    },
    { role: 'user' as const, content: `What you see: ${'Alice walks by the vending machine. '.repeat(175)}` },
  ],
};

/**
 * What one lifecycle writes to the SQLite log: with the benchmark's own store closed, a new
 * connection to the file (whose checkpoint counter starts at zero, so nothing checkpoints or
 * restarts the log meanwhile) truncates the WAL, runs the lifecycles, and reads how many page
 * frames the WAL grew by.
 */
async function walPagesPerCall(
  path: string,
  hashes: { source: string; schema: string },
  request: typeof REQUEST,
): Promise<number> {
  const store = await openStore({ kind: 'sqlite', path });
  try {
    const calls = 50;
    const lifecycle = storeLifecycle(store, hashes, 'deferred', request);
    for (let i = 0; i < 20; i++) await lifecycle();
    const truncated = await store.get<{ busy: number }>('PRAGMA wal_checkpoint(TRUNCATE)');
    if (Number(truncated?.busy) !== 0)
      throw new Error('the WAL could not be truncated: another connection is busy');
    for (let i = 0; i < calls; i++) await lifecycle();
    const page = Number((await store.get<{ page_size: number }>('PRAGMA page_size'))?.page_size);
    const frames = (statSync(`${path}-wal`).size - WAL_HEADER_BYTES) / (page + WAL_FRAME_HEADER_BYTES);
    return frames / calls;
  } finally {
    await store.close();
  }
}

const WAL_HEADER_BYTES = 32;
const WAL_FRAME_HEADER_BYTES = 24;

/** One timed call: wall microseconds, and this process's CPU microseconds (user + system). */
async function sample(op: () => Promise<void>, wall: number[], cpu: number[]): Promise<void> {
  const c0 = process.cpuUsage();
  const t0 = process.hrtime.bigint();
  await op();
  wall.push(Number(process.hrtime.bigint() - t0) / 1000);
  const c = process.cpuUsage(c0);
  cpu.push(c.user + c.system);
}

/** The orders of three sides (0, 1, 2): every side in every place equally often. */
const PERMUTATIONS = [
  [0, 1, 2],
  [1, 2, 0],
  [2, 0, 1],
  [2, 1, 0],
  [1, 0, 2],
  [0, 2, 1],
];

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / (xs.length || 1);

export default {
  name: 'sources',
  description: 'durable source-invocation lifecycle overhead per LLM call (scripted model, both stores)',
  async run(ctx) {
    const iterations = ctx.quick ? 200 : 2000;
    // The model runs in its own process, as a real one would, so its work does not share
    // this event loop with the store writes being measured.
    const dir = mkdtempSync(join(tmpdir(), 'noema-bench-'));
    const model = await startDevServices([
      scriptedModel({ rules: [], default: { json: REPLY, chunk_chars: 16 } }),
    ]);
    const env = { NOEMA_LLM_BASE_URL: model.urls[0]! };
    try {
      for (const kind of selectedStores()) {
        const { store, url, dispose } = await openTestStore(kind);
        try {
          const { source, resultSchema, traced, bare } = await tracingCalls(store, env);
          const hashes = { source: source.hash, schema: resultSchema.hash };
          // The floor of a traced call: two raw commits around the same bare call.
          const floor = await openCommitFloor(kind, kind === 'sqlite' ? join(dir, 'floor.db') : url);
          const floored = () => floor.around(bare, REQUEST, REPLY);
          for (let i = 0; i < 100; i++) {
            await bare();
            await traced();
            await floored();
          }
          // Interleaved call by call, the three sides' order going through all six permutations:
          // on a shared machine load drifts within seconds, and blocks of hundreds of calls let that
          // drift land on one side only. Keep-alive holds one connection for every side, so no
          // teardown crosses over. Nothing else runs between the sides: a store write timed between
          // them would warm SQLite for whichever side comes next, and flatter it.
          const a: number[] = [];
          const b: number[] = [];
          const f: number[] = [];
          const cpuA: number[] = [];
          const cpuB: number[] = [];
          const cpuF: number[] = [];
          const sides = [
            () => sample(bare, a, cpuA),
            () => sample(traced, b, cpuB),
            () => sample(floored, f, cpuF),
          ];
          for (let i = 0; i < iterations; i++)
            for (const k of PERMUTATIONS[i % PERMUTATIONS.length]!) await sides[k]!();
          // The store writes alone, timed right after an untraced call as they run in invokeSource:
          // with the fetch path's work in between, caches are cold and the same writes cost more
          // than in a tight loop of writes (the row below this one).
          const lifecycle = storeLifecycle(store, hashes);
          const w: number[] = [];
          for (let i = 0; i < iterations; i++) {
            await bare();
            await sample(lifecycle, w, []);
          }
          ctx.row({
            case: `lifecycle store writes only, between calls [${kind}]`,
            metric: 'p50 per call',
            unit: 'µs',
            value: summarize(w).p50,
          });
          // The finish as invokeSource commits it (deferred durability), and as it did before (an
          // ordinary synchronous commit), interleaved call by call.
          const deferred = storeLifecycle(store, hashes, 'deferred');
          const immediate = storeLifecycle(store, hashes, 'immediate');
          const d: number[] = [];
          const im: number[] = [];
          for (let i = 0; i < Math.min(iterations, 1000); i++) {
            await sample(i % 2 === 0 ? deferred : immediate, i % 2 === 0 ? d : im, []);
            await sample(i % 2 === 0 ? immediate : deferred, i % 2 === 0 ? im : d, []);
          }
          ctx.row({
            case: `lifecycle store writes only, finish deferred vs synchronous [${kind}]`,
            metric: 'p50 per call',
            unit: 'µs',
            value: summarize(d).p50,
            anchor: 'finish committed synchronously',
            anchor_value: summarize(im).p50,
          });
          const writes = await measure(iterations, storeLifecycle(store, hashes), 100);
          ctx.row({
            case: `lifecycle store writes only, tight loop [${kind}]`,
            metric: 'p50 per call',
            unit: 'µs',
            value: writes.p50,
          });
          // Streaming calls longer than PROGRESS_INTERVAL_MS also pay one batch write per
          // interval (the chunks that arrived in it); here 10 chunks a batch, as its own transaction.
          const batch = await measure(ctx.quick ? 100 : 1000, chunkBatchWrite(store), 50);
          ctx.row({
            case: `streamed chunks persisted while running, one batch of 10 [${kind}]`,
            metric: `p50 per batch (one per ${PROGRESS_INTERVAL_MS} ms of stream)`,
            unit: 'µs',
            value: batch.p50,
          });
          // Prompts of real calls are kilobytes: the same store work with an 8 KB prompt.
          const long = await measure(
            ctx.quick ? 100 : 1000,
            storeLifecycle(store, hashes, 'deferred', LONG_REQUEST),
            50,
          );
          ctx.row({
            case: `lifecycle store writes only, 8 KB prompt, tight loop [${kind}]`,
            metric: 'p50 per call',
            unit: 'µs',
            value: long.p50,
          });
          // Where the added time goes: the wall time of the two transactions inside traced calls
          // (they run cold, after the fetch path's work, so they cost more than the tight loop),
          // asynchronous or synchronous ones alike, and single statements committed on their own.
          const inTx: number[] = [];
          let txTime = 0;
          const transaction: Store['transaction'] = async (fn, options) => {
            const t0 = process.hrtime.bigint();
            try {
              return await store.transaction(fn, options);
            } finally {
              txTime += Number(process.hrtime.bigint() - t0) / 1000;
            }
          };
          // Where the store has synchronous transactions, invokeSource commits in those.
          const transactionSync: Store['transactionSync'] = store.transactionSync
            ? (fn, options) => {
                const t0 = process.hrtime.bigint();
                try {
                  return store.transactionSync!(fn, options);
                } finally {
                  txTime += Number(process.hrtime.bigint() - t0) / 1000;
                }
              }
            : undefined;
          // A statement committed on its own (runSync) is a transaction of one statement.
          const runSync: Store['runSync'] = store.runSync
            ? (sql, params, options) => {
                const t0 = process.hrtime.bigint();
                try {
                  return store.runSync!(sql, params, options);
                } finally {
                  txTime += Number(process.hrtime.bigint() - t0) / 1000;
                }
              }
            : undefined;
          // As is one committed on its own in one round trip (runAlone).
          const runAlone: Store['runAlone'] = store.runAlone
            ? async (sql, params, options) => {
                const t0 = process.hrtime.bigint();
                try {
                  return await store.runAlone!(sql, params, options);
                } finally {
                  txTime += Number(process.hrtime.bigint() - t0) / 1000;
                }
              }
            : undefined;
          // Everything else goes to the store itself (its methods use private fields).
          const timed = new Proxy(store, {
            get: (target, prop) => {
              if (prop === 'transaction') return transaction;
              if (prop === 'transactionSync') return transactionSync;
              if (prop === 'runSync') return runSync;
              if (prop === 'runAlone') return runAlone;
              const v = Reflect.get(target, prop, target);
              return typeof v === 'function' ? v.bind(target) : v;
            },
          });
          // Beside them, the floor's two commits as they run around its calls, interleaved call by call.
          const floorCommits: number[] = [];
          for (let i = 0; i < Math.min(iterations, 1000); i++) {
            await bare();
            txTime = 0;
            await traced(timed);
            inTx.push(txTime);
            await floored();
            floorCommits.push(floor.lastCommitsUs);
          }
          await floor.close();
          ctx.row({
            case: `lifecycle transactions inside traced calls [${kind}]`,
            metric: 'p50 per call (both)',
            unit: 'µs',
            value: summarize(inTx).p50,
            anchor: "the floor's two raw commits inside its calls",
            anchor_value: summarize(floorCommits).p50,
          });
          const base = summarize(a);
          const withTrace = summarize(b);
          const chunks = await store.get<{ n: number }>('SELECT SUM(chunk_count) AS n FROM llm_calls');
          ctx.log(
            `${kind}: ${withTrace.count} traced calls, ${Number(chunks?.n ?? 0)} chunks recorded (traced calls and store-only lifecycles)`,
          );
          if (kind === 'sqlite') {
            await store.close();
            for (const [label, request] of [
              ['', REQUEST],
              [', 8 KB prompt', LONG_REQUEST],
            ] as const) {
              const pages = await walPagesPerCall(url, hashes, request);
              ctx.row({
                case: `lifecycle WAL pages written per call${label} [sqlite]`,
                metric: `pages (${WAL_FRAME_HEADER_BYTES} + 4096 bytes each)`,
                unit: 'pages',
                value: Math.round(pages * 100) / 100,
              });
            }
          }
          ctx.row({
            case: `llm call, durable lifecycle [${kind}]`,
            metric: 'p50',
            unit: 'µs',
            value: withTrace.p50,
            anchor: 'same call, no trace',
            anchor_value: base.p50,
          });
          ctx.row({
            case: `llm call, durable lifecycle [${kind}]`,
            metric: 'p99',
            unit: 'µs',
            value: withTrace.p99,
            anchor: 'same call, no trace',
            anchor_value: base.p99,
          });
          const floorP50 = summarize(f).p50;
          ctx.row({
            case: `llm call between two raw commits (the floor of a traced call) [${kind}]`,
            metric: 'p50',
            unit: 'µs',
            value: floorP50,
            anchor: 'same call, no trace',
            anchor_value: base.p50,
          });
          const added = withTrace.p50 - base.p50;
          const floorAdded = floorP50 - base.p50;
          ctx.row({
            case: `tracing overhead [${kind}]`,
            metric: 'p50 added per call',
            unit: 'µs',
            value: added,
            anchor: 'two raw commits around the call: p50 added',
            anchor_value: floorAdded,
          });
          ctx.row({
            case: `tracing overhead ÷ its two-commit floor's [${kind}]`,
            metric: 'ratio of p50s added',
            unit: '×',
            value: added / floorAdded,
            anchor: 'target',
            anchor_value: 1.5,
            ratio: Math.round((1.5 / (added / floorAdded)) * 1000) / 1000,
          });
          // CPU time spent in this process is far less sensitive to other load than wall time:
          // it is the lifecycle's own work, whatever the scheduler does around it.
          // On PostgreSQL the server's CPU is not in it, on either side.
          ctx.row({
            case: `tracing overhead, this process's CPU [${kind}]`,
            metric: 'mean added per call',
            unit: 'µs',
            value: mean(cpuB) - mean(cpuA),
            anchor: 'two raw commits around the call: CPU added',
            anchor_value: mean(cpuF) - mean(cpuA),
          });
        } finally {
          await dispose();
        }
      }
    } finally {
      await model.close();
      rmSync(dir, { recursive: true, force: true });
    }
  },
} satisfies Bench;
