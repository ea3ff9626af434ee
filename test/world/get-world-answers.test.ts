/**
 * get_world answers the same JSON over MCP as over HTTP: both are spliced from the snapshot's stored
 * text (entities in the world's order, integer-like ids included), the MCP result's structured
 * content being that text's value — over HTTP (JSON answers and event streams) and stdio that text
 * itself, spliced into the answer, and its text content that text escaped from its bytes.
 */
import assert from 'node:assert/strict';
import { createInterface } from 'node:readline';
import { PassThrough } from 'node:stream';
import { test } from 'node:test';
import { poolStats } from '../../src/core/byte-pool.ts';
import { uuidv7 } from '../../src/core/ids.ts';
import { commitTurn } from '../../src/runtimes/world/commit.ts';
import { assembleScenario, createWorld, putEntity, putEnvironment } from '../../src/runtimes/world/index.ts';
import { clearSnapshotCache } from '../../src/runtimes/world/snapshots.ts';
import { getWorldRow, readWorldState } from '../../src/runtimes/world/state.ts';
import { applyWorldPatch, cloneWorld } from '../../src/runtimes/world/world-patch.ts';
import type { Store } from '../../src/store/store.ts';
import { catalogDispatcher } from '../../src/surfaces/mcp/catalogs.ts';
import { createMcpServer } from '../../src/surfaces/mcp/server.ts';
import { SplicingStdioTransport } from '../../src/surfaces/mcp/stdio-transport.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { startParkKit } from '../../src/testing/world-kit.ts';
import { startTestHttp, TOKEN } from '../http/helpers.ts';
import { httpClient } from '../mcp/helpers.ts';

// Integer-like ids among others: an object lists them first, the stored text in the world's order.
const IDS = ['lamp', '42', 'bench', '7', 'gate'];
// What a JSON string escapes (quotes, a backslash) and characters of several UTF-8 bytes, in the
// snapshot's text and in the entities changed after it: the MCP text content escapes them from bytes.
const SPICE = '— "quoted" \\ café 漢字 🙂';

/**
 * A world `w` of IDS (`lamp` an agent acting by `profile`, the others props), with `turns` committed
 * turns each changing one entity's state.
 */
async function worldOfTurns(store: Store, profile: string, turns: number): Promise<void> {
  const env = await putEnvironment(store, { version: 1, label: 'yard', content: 'a yard' });
  const entities = [];
  for (const id of IDS)
    entities.push(
      await putEntity(store, {
        version: 1,
        entity_id: id,
        environment_label: 'yard',
        state: `${id} as it was ${SPICE}`,
        ...(id === 'lamp' ? { kind: 'agent', memory: 'lit at dusk' } : { kind: 'prop' }),
      }),
    );
  const scenario = await assembleScenario(store, {
    version: 1,
    label: 'yard',
    environments: [env],
    entities,
    subjects: [{ entity_id: 'lamp', cognition_profile_ref: { hash: profile } }],
  });
  await createWorld(store, { world_slug: 'w', scenario_ref: scenario });
  const world = await getWorldRow(store, 'w');
  let state = await readWorldState(store, world, 0);
  for (let t = 1; t <= turns; t++) {
    const attempt = {
      attempt_id: uuidv7(),
      world_slug: 'w',
      attempted_turn: t,
      simulation_time: null,
      scenario_hash: world.scenario_hash,
    };
    await store.run(
      `INSERT INTO world_attempts (attempt_id, world_slug, attempted_turn, run_id, scenario_hash, status, started_at)
       VALUES (?, ?, ?, ?, ?, 'running', ?)`,
      [attempt.attempt_id, 'w', t, uuidv7(), world.scenario_hash, Date.now()],
    );
    const patch = {
      narration: `turn ${t}`,
      effects: [
        {
          op: 'set_entity_state' as const,
          entity_id: IDS[t % IDS.length]!,
          state: `changed at turn ${t} ${SPICE}`,
        },
      ],
    };
    await commitTurn(store, attempt, state, [
      {
        patch_seq: 1,
        subject_entity_id: 'lamp',
        workflow_hash: 'w',
        workflow_node_id: 'act',
        source_invocation_id: uuidv7(),
        patch,
        transitions: [],
      },
    ]);
    state = cloneWorld(state);
    applyWorldPatch(state, patch);
  }
}

/** A JSON-RPC `tools/call` of `get_world` for turn 2 of `world_slug`. */
const getWorldCall = (id: number, world_slug: string) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'get_world', arguments: { world_slug, turn: 2 } },
});

/** The JSON-RPC answer to call `id` whose result carries the world's JSON `text`, as a client parses it. */
const answerOf = (id: number, text: string) => ({
  jsonrpc: '2.0',
  id,
  result: { content: [{ type: 'text', text }], structuredContent: JSON.parse(text) },
});

/** POSTs `body` (one message or a batch) to the world catalog over HTTP, as a client accepting JSON. */
const postMcp = (url: string, body: unknown) =>
  fetch(`${url}/mcp/world`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${TOKEN}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
    },
    body: JSON.stringify(body),
  });

describeEachStore('get_world over MCP and HTTP', (factory) => {
  test('the MCP text of a past turn is the HTTP body without its links, warm and cold', async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startParkKit(store);
      await worldOfTurns(store, kit.doc('profiles/ant.json'), 4);
      const http = await startTestHttp(store);
      const mcp = await httpClient(http.url, TOKEN, '/mcp/world');
      try {
        const links = { self: '/worlds/w/turns/2', world: '/worlds/w' };
        for (const cold of [true, false]) {
          if (cold) clearSnapshotCache();
          const body = await http.get('/worlds/w/turns/2');
          assert.equal(body.status, 200);
          if (cold) clearSnapshotCache();
          const r = await catalogDispatcher('world').call(
            'get_world',
            { world_slug: 'w', turn: 2 },
            { store },
          );
          assert.equal(r.isError, undefined);
          const text = r.content[0]!.text;
          assert.equal(`${text.slice(0, -1)},"links":${JSON.stringify(links)}}`, body.text);
          assert.deepEqual(r.structuredContent, JSON.parse(text));
          // The entities in the world's order, as the text lists them (a parsed object would not).
          const at = IDS.map((id) => text.indexOf(`"${id}":{"kind"`));
          assert.deepEqual(
            at,
            [...at].sort((a, b) => a - b),
          );
          assert.ok(at[0]! > 0);
          assert.equal(JSON.parse(text).entities.bench.state, `changed at turn 2 ${SPICE}`);
          // Over the wire too (the client checks the structured content equals the text's value).
          if (cold) clearSnapshotCache();
          const wire = await mcp.client.callTool({
            name: 'get_world',
            arguments: { world_slug: 'w', turn: 2 },
          });
          assert.equal((wire.content as Array<{ text: string }>)[0]!.text, text);
          assert.deepEqual(wire.structuredContent, JSON.parse(text));
          // The answer's structured content is the stored text itself, as sent: entities in the
          // world's order (objects serialized again would list the integer-like ids first).
          if (cold) clearSnapshotCache();
          const pool = poolStats();
          const raw = await postMcp(http.url, getWorldCall(7, 'w'));
          assert.equal(raw.status, 200);
          assert.match(raw.headers.get('content-type') ?? '', /^application\/json/);
          const rawText = await raw.text();
          assert.ok(rawText.includes(`"structuredContent":${text}`), rawText);
          // Its text content escaped from the stored bytes, as `JSON.stringify` escapes the text.
          assert.ok(rawText.includes(`"text":${JSON.stringify(text)}`), rawText);
          assert.deepEqual(JSON.parse(rawText), answerOf(7, text));
          // Written into pooled memory, given back once the response was sent.
          await new Promise((r) => setImmediate(r));
          assert.equal(poolStats().taken, pool.taken + 1);
          assert.equal(poolStats().lent, pool.lent);
          // A batch is answered as one array, each answer spliced in its place; a request without
          // stored JSON (an unknown world) beside them keeps its own answer.
          if (cold) clearSnapshotCache();
          const batch = await postMcp(http.url, [
            getWorldCall(8, 'w'),
            getWorldCall(9, 'nowhere'),
            getWorldCall(10, 'w'),
          ]);
          assert.equal(batch.status, 200);
          const batchText = await batch.text();
          assert.equal(batchText.split(`"structuredContent":${text}`).length, 3, batchText);
          const answers = JSON.parse(batchText) as Array<{ id: number; result: { isError?: boolean } }>;
          assert.deepEqual(
            answers.map((a) => [a.id, a.result.isError ?? false]),
            [
              [8, false],
              [9, true],
              [10, false],
            ],
          );
          assert.deepEqual(answers[0], answerOf(8, text));
          // A call asking for progress is answered as an event stream: its result event spliced too.
          if (cold) clearSnapshotCache();
          const streamed = await postMcp(http.url, {
            ...getWorldCall(11, 'w'),
            params: { ...getWorldCall(11, 'w').params, _meta: { progressToken: 'p' } },
          });
          assert.match(streamed.headers.get('content-type') ?? '', /^text\/event-stream/);
          const data = (await streamed.text())
            .split('\n')
            .filter((line) => line.startsWith('data: '))
            .map((line) => line.slice('data: '.length));
          const result = data.find((d) => d.includes('"id":11'));
          assert.ok(result, data.join('\n'));
          assert.ok(result.includes(`"structuredContent":${text}`), result);
          assert.ok(result.includes(`"text":${JSON.stringify(text)}`), result);
          assert.deepEqual(JSON.parse(result), answerOf(11, text));
        }
      } finally {
        await mcp.close();
        await http.close();
        await kit.close();
      }
    });
  });

  test('over stdio the answer carries the stored text itself too; a cancelled call leaves no splice behind', async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startParkKit(store);
      await worldOfTurns(store, kit.doc('profiles/ant.json'), 4);
      const input = new PassThrough();
      const output = new PassThrough();
      const transport = new SplicingStdioTransport(input, output);
      const server = createMcpServer(store, 'world', { rawJson: (signal) => transport.spliceFor(signal) });
      await server.connect(transport);
      const lines = createInterface({ input: output })[Symbol.asyncIterator]();
      try {
        const ask = async (id: number, name: string, args: Record<string, unknown>) => {
          input.write(
            `${JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } })}\n`,
          );
          return (await lines.next()).value as string;
        };
        for (const cold of [true, false]) {
          if (cold) clearSnapshotCache();
          const line = await ask(1, 'get_world', { world_slug: 'w', turn: 2 });
          const answer = JSON.parse(line) as {
            result: { content: Array<{ text: string }>; structuredContent: unknown };
          };
          const text = answer.result.content[0]!.text;
          // The stored text as it is: entities in the world's order, integer-like ids among them.
          assert.ok(line.includes(`"structuredContent":${text}`), line);
          assert.ok(line.includes(`"text":${JSON.stringify(text)}`), line);
          assert.equal(JSON.parse(text).entities.bench.state, `changed at turn 2 ${SPICE}`);
          assert.deepEqual(answer.result.structuredContent, JSON.parse(text));
          assert.equal(transport.pendingSplices, 0);
        }
        // An error result hands out no stand-in; neither is any splice kept for it.
        const missing = JSON.parse(await ask(2, 'get_world', { world_slug: 'nowhere' })) as {
          result: { isError: boolean };
        };
        assert.equal(missing.result.isError, true);
        assert.equal(transport.pendingSplices, 0);
        // A call cancelled once its splice handed out a stand-in: its answer is never written, and
        // the splice is dropped with it.
        const cancelled = new AbortController();
        transport.spliceFor(cancelled.signal).standIn([Buffer.from('{}')]);
        assert.equal(transport.pendingSplices, 1);
        cancelled.abort();
        assert.equal(transport.pendingSplices, 0);
      } finally {
        await server.close();
        await kit.close();
      }
    });
  });
});
