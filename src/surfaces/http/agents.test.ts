import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadScript } from '../../dev/scripted-model/index.ts';
import { CALCULATOR_SCRIPT_PATH, startAgentKit } from '../../testing/agent-kit.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import { agentHandlers } from './agents.ts';

interface Frame {
  /** null for a live-only `text_delta` frame, which has no `id:` line. */
  id: number | null;
  event: string;
  data: Record<string, unknown>;
}

/** The stored (numbered) frames; `live` also keeps the live-only `text_delta` frames. */
async function collect(frames: AsyncIterable<string>, live = false): Promise<Frame[]> {
  const out: Frame[] = [];
  for await (const f of frames) {
    const m = /^(?:id: (\d+)\n)?event: (\w+)\ndata: (.*)\n\n$/s.exec(f);
    assert.ok(m, `a well-formed SSE frame: ${JSON.stringify(f)}`);
    assert.equal(m[1] === undefined, m[2] === 'text_delta', `only text_delta frames have no id: ${f}`);
    if (m[1] === undefined && !live) continue;
    out.push({ id: m[1] === undefined ? null : Number(m[1]), event: m[2]!, data: JSON.parse(m[3]!) });
  }
  return out;
}

/** The stored frames of a follower until (and with) the first that `last` accepts; then it is closed. */
async function collectUntil(frames: AsyncIterable<string>, last: (f: Frame) => boolean): Promise<Frame[]> {
  const out: Frame[] = [];
  for await (const f of frames) {
    const m = /^(?:id: (\d+)\n)?event: (\w+)\ndata: (.*)\n\n$/s.exec(f);
    assert.ok(m, `a well-formed SSE frame: ${JSON.stringify(f)}`);
    if (m[1] === undefined) continue;
    const frame = { id: Number(m[1]), event: m[2]!, data: JSON.parse(m[3]!) };
    out.push(frame);
    if (last(frame)) break;
  }
  return out;
}

describeEachStore('agent HTTP handlers (SSE frames, Last-Event-ID)', (factory) => {
  test('a message streams numbered events ending with done; the event stream resumes after Last-Event-ID', async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startAgentKit(store);
      try {
        const h = agentHandlers(kit.runtime, store);
        const { json } = await h.createSession({ agent_label: 'calculator', user_id: 'ada' });
        const { session_id } = json as { session_id: string };
        const answer = await h.postMessage(session_id, { content: 'please add 2 and 3' });
        const all = await collect(answer.frames, true);
        const deltas = all.filter((f) => f.event === 'text_delta');
        assert.equal(deltas.map((f) => f.data.delta).join(''), '2 + 3 = 5', 'the answer is token-streamed');
        const frames = all.filter((f) => f.id !== null);
        assert.equal(frames.at(-1)!.event, 'done');
        assert.equal(frames.at(-1)!.data.response, '2 + 3 = 5');
        assert.deepEqual(
          frames.map((f) => f.id),
          frames.map((_, i) => i + 1),
        );
        assert.ok(frames.every((f) => f.data.session_id === session_id && typeof f.data.run_id === 'string'));

        // A follower stays open for later turns: these end when their signal does.
        const resumed = await collect((await h.events(session_id, '3', AbortSignal.timeout(400))).frames);
        assert.deepEqual(
          resumed.map((f) => f.id),
          frames.slice(3).map((f) => f.id),
        );
        assert.deepEqual(
          (
            await collect(
              (
                await h.events(session_id, String(frames.length), AbortSignal.timeout(300))
              ).frames,
            )
          ).length,
          0,
        );
        await assert.rejects(h.events(session_id, 'abc'), { code: 'INVALID_INPUT' });
        await assert.rejects(h.events('no-such-session', null), { code: 'UNKNOWN_SESSION' });
        await assert.rejects(h.getSession(session_id, { max_messages: '0' }), { code: 'INVALID_INPUT' });
        const view = (await h.getSession(session_id)).json as { status: string };
        assert.equal(view.status, 'idle');
      } finally {
        await kit.close();
      }
    });
  });

  test('a refused message is an error before any frame; the event stream follows a turn in flight to its end', async () => {
    await factory.withStore(async ({ store }) => {
      const script = loadScript(CALCULATOR_SCRIPT_PATH);
      script.rules[0]!.reply.delay_ms = 200; // a slow EmotionNode keeps the turn in flight
      const kit = await startAgentKit(store, { script });
      try {
        const h = agentHandlers(kit.runtime, store);
        const { session_id } = (await h.createSession({ agent_label: 'calculator', user_id: 'ada' }))
          .json as {
          session_id: string;
        };
        await assert.rejects(h.postMessage(session_id, { content: '' }), { code: 'INVALID_INPUT' });
        const first = await h.postMessage(session_id, { content: 'please add 2 and 3' });
        await assert.rejects(h.postMessage(session_id, { content: 'again' }), { code: 'SESSION_BUSY' });
        const [live, followed] = await Promise.all([
          collect(first.frames),
          (async () => collectUntil((await h.events(session_id, '0')).frames, (f) => f.event === 'done'))(),
        ]);
        assert.equal(followed.at(-1)!.event, 'done', 'the follower sees the turn to its end');
        assert.deepEqual(
          followed.map((f) => f.id),
          live.map((f) => f.id),
        );
      } finally {
        await kit.close();
      }
    });
  });

  test('ECS through the handlers, and profiles', async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startAgentKit(store);
      try {
        const h = agentHandlers(kit.runtime, store);
        const { session_id } = (await h.createSession({ agent_label: 'calculator', user_id: 'eve' }))
          .json as {
          session_id: string;
        };
        const frames = await collect(
          (await h.postMessage(session_id, { content: 'please book a slot' })).frames,
        );
        const ecs = frames.at(-1)!;
        assert.equal(ecs.event, 'ecs');
        const contract_id = ecs.data.contract_id as string;
        await assert.rejects(h.ecsRespond({ session_id, contract_id, response: { day: 'someday' } }), {
          code: 'SCHEMA_INVALID',
        });
        assert.equal(
          (await h.ecsRespond({ session_id, contract_id, response: { day: 'tuesday' } })).status,
          200,
        );
        const cont = await collect((await h.ecsContinue({ session_id })).frames);
        assert.equal(cont.at(-1)!.event, 'done');
        assert.equal(cont[0]!.id, ecs.id! + 1, 'the continuation continues the sequence');
        await assert.rejects(h.ecsContinue({ session_id }), { code: 'NO_CHECKPOINT' });
        await kit.runtime.idle();
        assert.equal(
          ((await h.getProfile('eve')).json as { interaction_count: number }).interaction_count,
          1,
        );
        assert.deepEqual((await h.deleteUser('eve')).json, {
          user_id: 'eve',
          profile_deleted: true,
          memories_deleted: 0,
        });
        await assert.rejects(h.getProfile('bad user'), { code: 'INVALID_INPUT' });
        await assert.rejects(h.putAgent({ label: 'x' }), { code: 'INVALID_INPUT' });
      } finally {
        await kit.close();
      }
    });
  });
});
