/**
 * Which of an interaction's commits wait for the disk: every one that stores session events (they
 * are delivered after it, so durably), each call's record (before the call), the run's end and the
 * turn's closing. The turn's opening creates the run claimed: no claim commits on its own. The steps
 * before the first call (an emotion step switched off, the memory step) commit with its record.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Store, Transaction } from '../../store/store.ts';
import { startAgentKit } from '../../testing/agent-kit.ts';
import { BENCH_AGENT_SCRIPT, BENCH_AGENT_SETTINGS } from '../../testing/bench-agent.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import { type RecordedTransaction, recordingTransactions } from '../../testing/recording-store.ts';

const has = (sqls: string[], prefix: string) => sqls.some((s) => s.trimStart().startsWith(prefix));
/** A batch of progress events written on its own (a step that outlasted the batch window). */
const eventsOnly = (sqls: string[]) =>
  sqls.every((s) => s.trimStart().startsWith('INSERT INTO agent_session_events') || s.includes('pg_notify'));

/** The run's end: its status released with the transaction that ends it. */
const RUN_END = 'UPDATE engine_runs SET status = ?';
/** A claim of a queued run on its own (`claimRun`). */
const CLAIM_UPDATE = "UPDATE engine_runs SET status = 'running'";
/** Every claim records the run's attempt: the transaction that holds it is the run's claim. */
const claims = (t: RecordedTransaction) => has(t.sqls, 'INSERT INTO engine_run_attempts');

/** Transactions as their statements' beginnings, one line each (for assertion messages). */
const show = (ts: readonly RecordedTransaction[]) =>
  ts.map((t) => t.sqls.map((s) => s.slice(0, 50)).join(' | ')).join('\n');

/**
 * A session's second turn on `store` (its first warms the caches); `between` runs after the first.
 */
async function secondTurn(
  store: Store,
  between: () => void,
): Promise<{ status: string; response: string | null }> {
  const kit = await startAgentKit(store, {
    script: BENCH_AGENT_SCRIPT as never,
    definition: BENCH_AGENT_SETTINGS,
  });
  try {
    const rt = kit.runtime;
    const { session_id } = await rt.createSession({ agent_label: 'calculator', user_id: 'ada' });
    await rt.sendMessage(session_id, { content: 'add 2 and 3' });
    between();
    return await rt.sendMessage(session_id, { content: 'add 2 and 3' });
  } finally {
    await kit.close();
  }
}

/**
 * A session's second interaction (its first warms the caches): its transactions, the statements it
 * ran outside them, and its turn.
 */
async function secondInteraction(raw: Store): Promise<{
  all: RecordedTransaction[];
  reads: string[];
  turn: { status: string; response: string | null };
}> {
  const { store, recorded, reads } = recordingTransactions(raw);
  let tx0 = 0;
  let reads0 = 0;
  const turn = await secondTurn(store, () => {
    tx0 = recorded.length;
    reads0 = reads.length;
  });
  return { all: recorded.slice(tx0), reads: reads.slice(reads0), turn };
}

describeEachStore('agent interaction commits', (factory) => {
  test('the run is claimed in the turn’s opening, with no claim of its own; what stores events and what acknowledges waits for the disk', async () => {
    await factory.withStore(async ({ store: raw }) => {
      const { all, turn } = await secondInteraction(raw);
      assert.equal(turn.status, 'idle');
      assert.equal(turn.response, 'The sum is 5.');
      const show = (ts: typeof all) =>
        ts
          .map(
            (t) => `${t.durability}: ${t.sqls.map((s) => s.replace(/\s+/g, ' ').slice(0, 50)).join(' | ')}`,
          )
          .join('\n');

      assert.deepEqual(
        all.filter((t) => has(t.sqls, CLAIM_UPDATE)),
        [],
        `a claim of its own:\n${show(all)}`,
      );
      const claiming = all.filter(claims);
      assert.equal(claiming.length, 1, show(all));
      assert.ok(
        has(claiming[0]!.sqls, 'UPDATE agent_sessions') && has(claiming[0]!.sqls, 'INSERT INTO engine_runs'),
        `the run is claimed where the opening creates it:\n${show(claiming)}`,
      );

      // Session events are delivered once their commit returned: it must have waited for the disk.
      for (const t of all.filter((t) => has(t.sqls, 'INSERT INTO agent_session_events')))
        assert.equal(t.durability, 'immediate', t.sqls.join('\n'));

      // The opening, the three calls' records (each before its call), and the run's end with the
      // turn's closing; a loaded machine may add batches of progress events of their own.
      const waiting = all.filter((t) => t.durability === 'immediate' && !eventsOnly(t.sqls));
      assert.equal(waiting.length, 1 + 3 + 1, show(waiting));
      assert.equal(waiting.filter((t) => has(t.sqls, 'INSERT INTO source_invocations')).length, 3);
      assert.ok(has(waiting[0]!.sqls, 'UPDATE agent_sessions'), 'the turn’s opening');
      assert.ok(has(waiting.at(-1)!.sqls, RUN_END), 'the run’s end');
      assert.ok(has(waiting.at(-1)!.sqls, 'UPDATE agent_sessions'), 'the turn’s closing, with the run’s end');
    });
  });

  test('the turn closes in the transaction that ends its run: the reply, the session freed and `done` commit with the run’s completion, after its last step’s events', async () => {
    await factory.withStore(async ({ store: raw }) => {
      const { all, turn } = await secondInteraction(raw);
      assert.equal(turn.response, 'The sum is 5.');
      const ends = all.filter((t) => has(t.sqls, RUN_END));
      assert.equal(ends.length, 1, show(all));
      const end = ends[0]!.sqls.map((s) => s.trimStart());
      const at = (prefix: string) => end.findIndex((s) => s.startsWith(prefix));
      assert.ok(
        at('UPDATE agent_sessions') > at(RUN_END),
        `the session is freed after the run ends:\n${show(ends)}`,
      );
      assert.ok(at('INSERT INTO agent_session_messages') > at('UPDATE agent_sessions'), 'the reply');
      assert.ok(at('INSERT INTO agent_session_events') > at('UPDATE agent_sessions'), 'the closing events');
      // No transaction after it writes the session (no closing of its own).
      const after = all.slice(all.indexOf(ends[0]!) + 1);
      assert.deepEqual(
        after.filter(
          (t) => has(t.sqls, 'UPDATE agent_sessions') || has(t.sqls, 'INSERT INTO agent_session_messages'),
        ),
        [],
        show(after),
      );
      // The stored stream: the last step's events, then execution_state and done, done last.
      const events = await raw.all<{ event: string; run_id: string }>(
        'SELECT event, run_id FROM agent_session_events ORDER BY session_id, seq',
      );
      const mine = events.filter((e) => e.run_id === events.at(-1)!.run_id).map((e) => e.event);
      assert.deepEqual(mine.slice(-2), ['execution_state', 'done'], mine.join(' '));
      assert.ok(mine.includes('text'), `the last step's text is stored before done: ${mine.join(' ')}`);
    });
  });

  test('a turn sends none of the statements it can do without: no graph stored again, no run read before its insert, no seq read back, no MCP config read again, no checkpoint deleted for a run that never waited, no session row read before its claim', async () => {
    await factory.withStore(async ({ store: raw }) => {
      const { all, reads, turn } = await secondInteraction(raw);
      assert.equal(turn.response, 'The sum is 5.');
      const sent = [...all.flatMap((t) => t.sqls), ...reads].map((s) => s.replace(/\s+/g, ' ').trim());
      for (const needless of [
        'INSERT INTO engine_graphs',
        'SELECT 1 AS x FROM engine_runs',
        'SELECT invocation_seq FROM source_invocations',
        'SELECT content FROM mcp_servers',
        'DELETE FROM graph_checkpoints',
        // The session's row: its agent and user are known from the first message.
        'SELECT * FROM agent_sessions',
      ])
        assert.deepEqual(
          sent.filter((s) => s.startsWith(needless)),
          [],
          needless,
        );
      // What the turn must still write: its run, its three calls and its closing.
      assert.equal(sent.filter((s) => s.startsWith('INSERT INTO engine_runs')).length, 1);
      assert.equal(sent.filter((s) => s.startsWith('INSERT INTO source_invocations')).length, 3);
    });
  });

  test('a transaction storing session events with other writes issues the events with them, and the opening and closing their writes with the session’s claim, not after their answers', async () => {
    await factory.withStore(async ({ store: raw }) => {
      // Per transaction: its statements, and for the events' insert how many of its statements were
      // in flight (issued, their answer not yet seen) when it was issued.
      const txs: Array<{ sqls: string[]; inFlightAt: number[]; inFlightAtEvents: number | null }> = [];
      const store = new Proxy(raw, {
        get(target, key) {
          if (key !== 'transaction') {
            const v = Reflect.get(target, key);
            return typeof v === 'function' ? v.bind(target) : v;
          }
          return (fn: (tx: Transaction) => Promise<unknown>, options?: never) =>
            target.transaction((tx) => {
              const t = {
                sqls: [] as string[],
                inFlightAt: [] as number[],
                inFlightAtEvents: null as number | null,
              };
              txs.push(t);
              let inFlight = 0;
              const counted = new Proxy(tx, {
                get(inner, k) {
                  const v = Reflect.get(inner, k);
                  if (k === 'write' || k === 'writeOne' || k === 'writeReturning')
                    // Issued without waiting: its answer is awaited only behind the COMMIT.
                    return (sql: string, ...rest: unknown[]) => {
                      t.sqls.push(sql.trim());
                      t.inFlightAt.push(inFlight);
                      if (sql.trimStart().startsWith('INSERT INTO agent_session_events'))
                        t.inFlightAtEvents = inFlight;
                      inFlight++;
                      return (v as (s: string, ...r: unknown[]) => void).call(inner, sql, ...rest);
                    };
                  if (k !== 'run' && k !== 'get' && k !== 'all')
                    return typeof v === 'function' ? v.bind(inner) : v;
                  return (sql: string, params?: never) => {
                    t.sqls.push(sql.trim());
                    t.inFlightAt.push(inFlight);
                    if (sql.trimStart().startsWith('INSERT INTO agent_session_events'))
                      t.inFlightAtEvents = inFlight;
                    inFlight++;
                    // Answered a turn of the event loop later, as over a network (SQLite answers at once).
                    const p = (v as (s: string, p?: never) => Promise<unknown>)
                      .call(inner, sql, params)
                      .finally(() => new Promise((r) => setImmediate(r)));
                    const done = () => {
                      inFlight--;
                    };
                    p.then(done, done);
                    return p;
                  };
                },
              });
              return fn(counted);
            }, options);
        },
      });
      const turn = await secondTurn(store, () => {
        txs.length = 0;
      });
      assert.equal(turn.response, 'The sum is 5.');
      const withWrites = txs.filter((t) => t.inFlightAtEvents !== null && !eventsOnly(t.sqls));
      const listed = (t: { sqls: string[] }) => t.sqls.map((q) => q.slice(0, 60)).join('\n');
      // The opening issues what follows the session's claim with it, and rolls it back if it was
      // refused; the closing, in the run's end, issues the reply with the closing events.
      const opening = txs.filter((t) => t.sqls[0]?.startsWith('UPDATE agent_sessions'));
      assert.equal(opening.length, 1, 'the opening');
      const closing = txs.filter(
        (t) => !opening.includes(t) && t.sqls.some((q) => q.startsWith('UPDATE agent_sessions')),
      );
      assert.equal(closing.length, 1, 'the closing');
      const turnEnds = [...opening, ...closing];
      for (const t of turnEnds)
        assert.ok(
          t.inFlightAtEvents! > 0,
          `events issued after every other statement answered:\n${listed(t)}`,
        );
      const closeAt = closing[0]!.sqls.findIndex((q) => q.startsWith('UPDATE agent_sessions'));
      assert.ok(
        closing[0]!.inFlightAt[closeAt]! > 0,
        `the session's close issued behind the run's end, not after its answers:\n${listed(closing[0]!)}`,
      );
      // The run's own transactions (the calls' records, the run's end) issue the events behind their
      // statements too, unless the recorder was still writing queued events on another connection
      // when the transaction began: then they wait for it, whatever the load. So at least one of
      // them, not each (under CI load one call's record once found the recorder writing).
      const runTxs = withWrites.filter((t) => !turnEnds.includes(t));
      assert.ok(runTxs.length >= 1, `${runTxs.length} run transactions with events and other writes`);
      assert.ok(
        runTxs.some((t) => t.inFlightAtEvents! > 0),
        `events issued after every other statement answered in each run transaction:\n${runTxs.map(listed).join('\n--\n')}`,
      );
      assert.ok(
        opening[0]!.inFlightAt[1]! > 0,
        `issued after the session's row answered: ${opening[0]!.sqls[1]?.slice(0, 60)}`,
      );
    });
  });

  test('the emotion step switched off and the memory step commit with the first call’s record: no transaction between the run’s claim and it', async () => {
    await factory.withStore(async ({ store: raw }) => {
      const { all, turn } = await secondInteraction(raw);
      assert.equal(turn.response, 'The sum is 5.');
      const claim = all.findIndex(claims);
      const record = all.findIndex((t) => has(t.sqls, 'INSERT INTO source_invocations'));
      assert.ok(claim >= 0 && record > claim, show(all));
      const between = all.slice(claim + 1, record).filter((t) => !eventsOnly(t.sqls));
      assert.deepEqual(between, [], show(between));
      const journal = all[record]!.sqls.filter((s) => s.trimStart().startsWith('INSERT INTO engine_journal'));
      assert.equal(journal.length, 2, `the emotion step and the memory step:\n${show([all[record]!])}`);
      const sqls = all[record]!.sqls.map((s) => s.trimStart());
      assert.ok(
        sqls.findLastIndex((s) => s.startsWith('INSERT INTO engine_journal')) <
          sqls.findIndex((s) => s.startsWith('INSERT INTO source_invocations')),
        'the steps are written ahead of the call’s record',
      );
    });
  });

  test('every step between the run’s claim and its end commits with a call’s record: no transaction of steps alone', async () => {
    await factory.withStore(async ({ store: raw }) => {
      const { all, turn } = await secondInteraction(raw);
      assert.equal(turn.response, 'The sum is 5.');
      const claim = all.findIndex(claims);
      const end = all.findIndex((t) => has(t.sqls, RUN_END));
      assert.ok(claim >= 0 && end > claim, show(all));
      const between = all.slice(claim + 1, end).filter((t) => !eventsOnly(t.sqls));
      // The three calls' records and finishes; the reasoning step routing to the tool and the tool step
      // ride in the records after them.
      assert.deepEqual(
        between.filter(
          (t) => !has(t.sqls, 'INSERT INTO source_invocations') && !has(t.sqls, 'UPDATE source_invocations'),
        ),
        [],
        show(between),
      );
      assert.equal(between.length, 6, show(between));
    });
  });
});
