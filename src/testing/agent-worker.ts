/**
 * A second OS process for agent tests: `continue <session_id>` resumes a session suspended on an
 * ECS form; `respond <json>` records an answer; `background` finishes queued profile updates;
 * `send <json [session_id, content]>` sends a message. NOEMA_DB names the store; the LLM and MCP
 * variables come from the environment. Prints one JSON line (`send` also one when the turn starts).
 * AGENT_AFTER_CLAIM (send): `exit` dies right after the turn's opening committed (the session's
 * claim, the message and the run created claimed by this process's engine, before it executes); a
 * number of ms blocks this process that long there. AGENT_CLAIM_LEASE_MS sets the session's claim
 * lease, AGENT_LEASE_MS the engine's.
 */
import { migrations } from '../app/migrations.ts';
import { createAgentRuntime, type SessionEvent } from '../runtimes/agent/index.ts';
import { openStore, parseStoreTarget } from '../store/index.ts';

const [mode, arg] = process.argv.slice(2);
const store = await openStore(parseStoreTarget(process.env.NOEMA_DB), { migrations });
const runtime = await createAgentRuntime(store, {
  resumeBackground: mode === 'background',
  ...(process.env.AGENT_LEASE_MS ? { leaseMs: Number(process.env.AGENT_LEASE_MS) } : {}),
  ...(process.env.AGENT_CLAIM_LEASE_MS ? { claimLeaseMs: Number(process.env.AGENT_CLAIM_LEASE_MS) } : {}),
});
const afterClaim = process.env.AGENT_AFTER_CLAIM;
const events: SessionEvent[] = [];
try {
  if (mode === 'continue') {
    const turn = await runtime.continueEcs({ session_id: arg }, (e) => events.push(e));
    console.log(
      JSON.stringify({ ok: true, pid: process.pid, turn: { ...turn, outcome: undefined }, events }),
    );
  } else if (mode === 'send') {
    // Prints the run id as soon as the turn starts, so a test can kill this process mid-turn.
    const [session_id, content] = JSON.parse(arg!) as [string, string];
    const turn = await runtime.sendMessage(session_id, { content }, (e) => {
      if (e.id === 1 || e.data.phase === 'reasoning' || e.data.phase === 'started')
        console.log(JSON.stringify({ started: e.data.run_id, event: e.event, phase: e.data.phase ?? null }));
      // The `started` event is delivered once the opening committed, before the run executes.
      if (e.data.phase === 'started' && afterClaim === 'exit') process.exit(3);
      if (e.data.phase === 'started' && afterClaim)
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Number(afterClaim));
    });
    console.log(JSON.stringify({ ok: true, turn: { ...turn, outcome: undefined } }));
  } else if (mode === 'respond') {
    console.log(JSON.stringify({ ok: true, result: await runtime.respondEcs(JSON.parse(arg!)) }));
  } else if (mode === 'background') {
    await runtime.idle();
    console.log(JSON.stringify({ ok: true }));
  } else {
    console.log(JSON.stringify({ ok: false, code: 'USAGE', message: `unknown mode ${mode}` }));
  }
} catch (err) {
  const e = err as { code?: string; message: string; details?: unknown };
  console.log(JSON.stringify({ ok: false, code: e.code, message: e.message, details: e.details }));
} finally {
  await runtime.close();
  await store.close();
}
