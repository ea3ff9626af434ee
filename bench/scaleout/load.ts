/**
 * The scale-out benchmark's loads, through the `serve --no-work` API as a client would: a backlog of
 * flowchart runs and streamed agent messages drained by the workers (throughput), one flowchart run
 * at a time (claim overhead), and messages sent in turn to two servers (added latency).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Store } from '../../src/store/store.ts';
import { TOKEN } from './cluster.ts';

const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

async function post(url: string, body: unknown): Promise<{ status: number; text: string }> {
  const res = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
  return { status: res.status, text: await res.text() };
}

/** A retryable refusal (the API's store pool saturated on a loaded machine) is sent again, as a client would. */
async function retried(send: () => Promise<{ status: number; text: string }>) {
  let r = await send();
  for (let i = 0; i < 5 && r.status === 503 && r.text.includes('"retryable":true'); i++) {
    await sleep(200 * (i + 1));
    r = await send();
  }
  return r;
}

export async function createSession(api: string, user: string): Promise<string> {
  const r = await post(`${api}/sessions`, { agent_label: 'bench_adder', user_id: user });
  if (r.status !== 201) throw new Error(`POST /sessions: ${r.status} ${r.text}`);
  return (JSON.parse(r.text) as { session_id: string }).session_id;
}

/** Sends one message and reads its stream to the end; throws unless the turn ended with `done`. */
export async function sendMessage(api: string, session: string): Promise<void> {
  const r = await retried(() => post(`${api}/sessions/${session}/messages`, { content: 'add 2 and 3' }));
  if (r.status !== 200 || !/^event: done$/m.test(r.text))
    throw new Error(`message to ${session} on ${api}: ${r.status} ${r.text.slice(-400)}`);
}

/** Queues one flowchart run; returns its run id (the engine run's). */
export async function queueFlowRun(api: string, flowchartId: string, i: number): Promise<string> {
  const r = await retried(() =>
    post(`${api}/api/flowcharts/${flowchartId}/runs`, { input: { message: `printer jam ${i}` } }),
  );
  if (r.status !== 202) throw new Error(`POST flowchart run: ${r.status} ${r.text}`);
  return (JSON.parse(r.text) as { flowchart_run_id: string }).flowchart_run_id;
}

/** Waits until no run is queued or running; throws if one failed. */
export async function untilIdle(store: Store, timeoutMs = 120_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const rows = await store.all<{ status: string; n: number }>(
      "SELECT status, COUNT(*) AS n FROM engine_runs WHERE status IN ('queued', 'running', 'failed') GROUP BY status",
    );
    const failed = rows.find((r) => r.status === 'failed');
    if (failed) throw new Error(`${failed.n} run(s) failed`);
    if (rows.length === 0) return;
    if (Date.now() > until) throw new Error(`runs not finished: ${JSON.stringify(rows)}`);
    await sleep(20);
  }
}

/**
 * A backlog of `runs` (half flowchart runs, half agent messages on sessions of their own, created
 * beforehand) sent at once; the seconds until every run finished.
 */
export async function drainBacklog(
  store: Store,
  api: string,
  flowchartId: string,
  runs: number,
  round: number,
): Promise<number> {
  const messages = Math.floor(runs / 2);
  const sessions = await Promise.all(
    Array.from({ length: messages }, (_, i) => createSession(api, `r${round}u${i}`)),
  );
  const t0 = performance.now();
  await Promise.all([
    ...sessions.map((s) => sendMessage(api, s)),
    ...Array.from({ length: runs - messages }, (_, i) => queueFlowRun(api, flowchartId, i)),
  ]);
  await untilIdle(store);
  return (performance.now() - t0) / 1000;
}

/** For each run: ms from its creation to its first claim (`engine_run_attempts`). */
export async function claimDelays(store: Store, runIds: readonly string[]): Promise<number[]> {
  if (runIds.length === 0) return [];
  const rows = await store.all<{ created_at: number; claimed_at: number }>(
    `SELECT r.created_at, MIN(a.claimed_at) AS claimed_at
       FROM engine_runs r JOIN engine_run_attempts a ON a.run_pk = r.run_pk
      WHERE r.run_id IN (${runIds.map(() => '?').join(', ')})
      GROUP BY r.run_pk, r.created_at`,
    [...runIds],
  );
  return rows.map((r) => Number(r.claimed_at) - Number(r.created_at));
}

/** `count` flowchart runs, each queued once the previous one finished, after a random pause. */
export async function probeRuns(
  store: Store,
  api: string,
  flowchartId: string,
  count: number,
): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    await sleep(30 + Math.random() * 120);
    const id = await queueFlowRun(api, flowchartId, i);
    ids.push(id);
    for (;;) {
      const r = await store.get<{ status: string }>('SELECT status FROM engine_runs WHERE run_id = ?', [id]);
      if (r?.status === 'completed') break;
      if (r?.status === 'failed') throw new Error(`probe run ${id} failed`);
      await sleep(10);
    }
  }
  return ids;
}

/** Agent messages sent in `loops` sequential loops until `stop` is aborted: load that keeps workers busy. */
export async function backgroundMessages(api: string, loops: number, stop: AbortSignal): Promise<void> {
  await Promise.all(
    Array.from({ length: loops }, async (_, i) => {
      const session = await createSession(api, `bg${i}`);
      while (!stop.aborted) await sendMessage(api, session);
    }),
  );
}
