/** The agent routes over real HTTP (Hono app, bearer auth, SSE), with the scripted model and a real MCP server. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startFixtureHttpServer } from '../../src/dev/mcp-fixture-server.ts';
import { loadScript, startScriptedModel } from '../../src/dev/scripted-model/index.ts';
import { putMcpServer, putResponseSource } from '../../src/sources/index.ts';
import { CALCULATOR_SCRIPT_PATH, calculatorDefinition, startAgentKit } from '../../src/testing/agent-kit.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { connectSse, type SseConnection } from '../../src/testing/sse-client.ts';
import { type Loose, startTestHttp, TOKEN } from './helpers.ts';

interface Frame {
  id: number;
  event: string;
  data: Loose;
}

function parseSse(text: string): Frame[] {
  return text
    .split('\n\n')
    .filter((block) => /^id: /m.test(block))
    .map((block) => {
      const field = (name: string) => new RegExp(`^${name}: (.*)$`, 'm').exec(block)?.[1] ?? '';
      return { id: Number(field('id')), event: field('event'), data: JSON.parse(field('data')) };
    });
}

const WORKER = fileURLToPath(new URL('../../src/testing/agent-worker.ts', import.meta.url));

describeEachStore('agent HTTP routes', (factory) => {
  test('definitions, sessions, SSE turns, Last-Event-ID, ECS, profiles and the catalog kinds', async () => {
    await factory.withStore(async ({ store }) => {
      const model = await startScriptedModel({ script: loadScript(CALCULATOR_SCRIPT_PATH) });
      const mcp = await startFixtureHttpServer();
      Object.assign(process.env, {
        NOEMA_LLM_BASE_URL: model.url,
        NOEMA_LLM_MODEL: 'scripted-1',
        AGENT_HTTP_MCP_URL: mcp.url,
      });
      const http = await startTestHttp(store);
      const call = async (
        method: string,
        path: string,
        body?: unknown,
        headers: Record<string, string> = {},
      ) => {
        const res = await fetch(`${http.url}${path}`, {
          method,
          headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...headers },
          ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
        });
        const text = await res.text();
        const type = res.headers.get('content-type') ?? '';
        return {
          status: res.status,
          type,
          text,
          body: type.startsWith('application/json') ? JSON.parse(text) : undefined,
        } as { status: number; type: string; text: string; body: Loose };
      };
      try {
        const llm = await putResponseSource(store, {
          version: 1,
          interface: { name: 'llm_chat_completions', model: '@chat', schema_delivery: 'response_format' },
        });
        const server = await putMcpServer(store, {
          version: 1,
          transport: { type: 'streamable_http', url_env: 'AGENT_HTTP_MCP_URL' },
        });
        const put = await call('POST', '/agents', calculatorDefinition(llm.hash, server.hash));
        assert.equal(put.status, 201, put.text);
        assert.deepEqual(
          put.body.tools.map((t: Loose) => t.name),
          ['add', 'fail'],
        );
        const bad = await call('POST', '/agents', { version: 1 });
        assert.equal(bad.status, 400);
        assert.equal(bad.body.code, 'INVALID_INPUT');

        const created = await call('POST', '/sessions', { agent_label: 'calculator', user_id: 'ada' });
        assert.equal(created.status, 201, created.text);
        const sid = created.body.session_id as string;

        const turn = await call('POST', `/sessions/${sid}/messages`, { content: 'please add 2 and 3' });
        assert.equal(turn.status, 200);
        assert.match(turn.type, /^text\/event-stream/);
        const frames = parseSse(turn.text);
        assert.equal(frames.at(-1)!.event, 'done');
        assert.equal(frames.at(-1)!.data.response, '2 + 3 = 5');
        assert.ok(frames.some((f) => f.event === 'tool_result' && f.data.status === 'COMPLETED'));
        assert.deepEqual(
          frames.map((f) => f.id),
          frames.map((_, i) => i + 1),
        );

        // The event stream replays after Last-Event-ID, then stays open for later turns.
        const resumed = await connectSse(`${http.url}/sessions/${sid}/events`, {
          authorization: `Bearer ${TOKEN}`,
          'last-event-id': '4',
        });
        assert.equal(resumed.status, 200);
        const replayed: number[] = [];
        for (let i = 4; i < frames.length; i++) replayed.push(Number((await resumed.next())!.id));
        resumed.close();
        assert.deepEqual(
          replayed,
          frames.slice(4).map((f) => f.id),
        );
        assert.equal((await call('GET', `/sessions/${sid}/events?last_event_id=x`)).status, 400);

        // Refusals are JSON errors, never a stream and never a 500.
        const empty = await call('POST', `/sessions/${sid}/messages`, { content: '' });
        assert.equal(empty.status, 400);
        assert.equal(empty.body.code, 'INVALID_INPUT');
        assert.equal((await call('POST', `/sessions/${sid}/messages`, '{not json')).status, 400);
        const unknown = await call('POST', '/sessions/nope/messages', { content: 'hi' });
        assert.equal(unknown.status, 404);
        assert.equal(unknown.body.code, 'UNKNOWN_SESSION');
        const unauth = await fetch(`${http.url}/sessions/${sid}/messages`, { method: 'POST', body: '{}' });
        assert.equal(unauth.status, 401);

        // ECS over HTTP.
        const ask = parseSse(
          (await call('POST', `/sessions/${sid}/messages`, { content: 'please book a slot' })).text,
        );
        const ecs = ask.at(-1)!;
        assert.equal(ecs.event, 'ecs');
        const busy = await call('POST', `/sessions/${sid}/messages`, { content: 'hello?' });
        assert.equal(busy.status, 409);
        assert.equal(busy.body.code, 'SESSION_BUSY');
        const wrong = await call('POST', '/ecs/respond', {
          session_id: sid,
          contract_id: ecs.data.contract_id,
          response: { day: 'friday' },
        });
        assert.equal(wrong.status, 400);
        assert.equal(wrong.body.code, 'SCHEMA_INVALID');
        assert.ok(wrong.body.details.errors.length > 0);
        const right = await call('POST', '/ecs/respond', {
          session_id: sid,
          contract_id: ecs.data.contract_id,
          response: { day: 'monday' },
        });
        assert.equal(right.status, 200, right.text);
        const cont = await call('POST', '/ecs/continue', { session_id: sid });
        assert.match(cont.type, /^text\/event-stream/);
        assert.equal(parseSse(cont.text).at(-1)!.data.response, 'Booked for the chosen day.');
        assert.equal((await call('POST', '/ecs/continue', { session_id: sid })).body.code, 'NO_CHECKPOINT');

        // The catalog: session detail, list filter, agent by hash, a contract.
        const detail = await call('GET', `/sessions/${sid}`);
        assert.equal(detail.status, 200, detail.text);
        assert.equal(detail.body.status, 'idle');
        assert.equal(detail.body.transcript.length, 4);
        assert.ok(detail.body.links.agent);
        const list = await call('GET', '/sessions?user_id=ada');
        assert.deepEqual(
          list.body.items.map((s: Loose) => s.session_id),
          [sid],
        );
        assert.equal((await call('GET', '/sessions?status=sleeping')).status, 400);
        const agent = await call('GET', `/agents/hash/${put.body.hash}`);
        assert.equal(agent.body.label, 'calculator');
        const contract = await call('GET', `/contracts/${ecs.data.contract_id}`);
        assert.equal(contract.body.status, 'COMPLETED');
        assert.equal((await call('GET', '/contracts/nope')).status, 404);

        // Profiles are updated in the background: poll (bounded).
        let profile: Loose = null;
        for (let i = 0; i < 100; i++) {
          profile = (await call('GET', '/users/ada/profile')).body;
          if (profile.interaction_count >= 2) break;
          await new Promise((r) => setTimeout(r, 50));
        }
        assert.equal(profile.interaction_count, 2);
        assert.equal((await call('GET', '/user-profiles/ada')).status, 200);
        const forgot = await call('DELETE', '/users/ada');
        assert.equal(forgot.status, 200);
        assert.equal(forgot.body.profile_deleted, true);
        assert.equal((await call('GET', '/users/ada/profile')).body.stored, false);
        assert.equal((await call('GET', '/users/bad%20user/profile')).status, 400);
      } finally {
        await http.close();
        await model.close();
        await mcp.close();
      }
    });
  });
  test('a follower opened while the session is idle sees every later turn, in whichever process it runs', async () => {
    await factory.withStore(async ({ store, url }) => {
      const kit = await startAgentKit(store);
      // The server's agent runtime reads the same model and MCP settings from the environment.
      Object.assign(process.env, kit.env);
      const http = await startTestHttp(store);
      let stopped = false;
      const stop = async () => {
        if (stopped) return;
        stopped = true;
        await http.close();
      };
      const auth = { authorization: `Bearer ${TOKEN}` };
      let follower: SseConnection | null = null;
      try {
        const { session_id } = await kit.runtime.createSession({ agent_label: 'calculator', user_id: 'ada' });
        follower = await connectSse(`${http.url}/sessions/${session_id}/events`, auth);
        assert.equal(follower.status, 200);
        const follow = async (): Promise<Array<{ id: number; event: string; run_id: string }>> => {
          const seen = [];
          for (;;) {
            const m = await follower!.next(15_000);
            assert.ok(m, 'the follower is still open');
            if (m.event === 'text_delta') continue;
            const data = JSON.parse(m.data) as { run_id: string };
            seen.push({ id: Number(m.id), event: m.event, run_id: data.run_id });
            if (m.event === 'done' || m.event === 'error' || m.event === 'ecs') return seen;
          }
        };
        await new Promise((r) => setTimeout(r, 1000)); // the session sits idle a second

        // A turn run by another runtime on the store (not the server's), then one sent over HTTP.
        const first = await kit.runtime.sendMessage(session_id, { content: 'please add 2 and 3' });
        const seenFirst = await follow();
        const res = await fetch(`${http.url}/sessions/${session_id}/messages`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ content: 'hello' }),
        });
        assert.equal(res.status, 200);
        await res.text();
        const seenSecond = await follow();
        // A third turn run by another OS process: found by polling the store.
        const worker = spawn(
          process.execPath,
          [WORKER, 'send', JSON.stringify([session_id, 'hello again'])],
          {
            env: { ...process.env, ...kit.env, NOEMA_DB: url },
          },
        );
        const workerDone = new Promise((r) => worker.on('exit', r));
        const seenThird = await follow();
        await workerDone;
        assert.equal(seenThird.at(-1)!.event, 'done');

        const stored = await kit.runtime.events(session_id);
        assert.deepEqual(
          [...seenFirst, ...seenSecond, ...seenThird].map((e) => e.id),
          stored.map((e) => e.id),
          'every stored event of both turns, in order',
        );
        assert.deepEqual(
          seenFirst.map((e) => e.run_id),
          seenFirst.map(() => first.run_id),
        );
        assert.equal(seenFirst[0]!.event, 'status');
        assert.equal(seenSecond.at(-1)!.event, 'done');
        assert.notEqual(seenSecond[0]!.run_id, first.run_id);

        // A follower still open when the server stops is ended by the shutdown (which does not wait on it).
        const open = await connectSse(`${http.url}/sessions/${session_id}/events`, {
          ...auth,
          'last-event-id': String(stored.at(-1)!.id),
        });
        await stop();
        assert.equal(await open.next(5_000), null, 'the shutdown ended the open follower');
      } finally {
        follower?.close();
        await stop();
        await kit.close();
      }
    });
  });
});
