import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { listSourceInvocations, putResponseSource } from '../../sources/index.ts';
import type { Store } from '../../store/store.ts';
import { describeEachStore } from '../../testing/each-store.ts';
import { toolNode } from '../../testing/engine-kit.ts';
import { recordingTransactions } from '../../testing/recording-store.ts';
import { createEngine } from '../create-engine.ts';
import type { GraphSpec, Json, NodeType } from '../engine.ts';
import { sourcesExecutor } from './sources-executor.ts';

const SECRET = 'tok-engine-secret-5b1e08d4';

/** Every row of every table, as one string: a secret must be found nowhere in it. */
async function everyStoredRow(store: Store): Promise<{ tables: string[]; text: string }> {
  const tables = await store.tableNames();
  const parts: string[] = [];
  for (const t of tables) parts.push(JSON.stringify(await store.all(`SELECT * FROM ${t}`)));
  return { tables, text: parts.join('\n') };
}

async function toyServer(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (d) => {
      body += d;
    });
    req.on('end', () => {
      if (req.url === '/leaky') {
        // Echoes the credentials it received, as a careless upstream would.
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ saw: req.headers.authorization, note: `token was ${SECRET}` }));
      } else if (req.url === '/leaky-fail') {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: `rejected ${SECRET}` }));
      } else if (req.url === '/llm/chat/completions') {
        // Not an event stream and not JSON: the protocol failure quotes it in its message.
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end(`upstream says ${SECRET}`);
      } else if (req.url === '/add') {
        const { a, b } = JSON.parse(body) as { a: number; b: number };
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ sum: a + b }));
      } else {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 'jammed' }));
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

function graphFor(source_hash: string, request?: Json, kind?: string): GraphSpec {
  return {
    entry: 'reason',
    channels: { messages: { reducer: 'append' } },
    nodes: [
      { id: 'reason', type: 'source_reason', config: { source_hash, request, kind } as Json },
      { id: 'tool', type: 'tool' },
      { id: 'end', type: 'terminal' },
    ],
    connectors: [
      { from: 'reason', to: 'tool', route: 'act' },
      { from: 'reason', to: 'end', route: 'done' },
      { from: 'tool', to: 'reason' },
    ],
  };
}

/** Asks for one tool call through a stored source, then reports the contract's status. */
const sourceReason: NodeType<{ source_hash: string; request?: Json; kind?: string }> = {
  type: 'source_reason',
  execute(ctx) {
    const done = ctx.completed_executions;
    if (done.length === 0) {
      return {
        kind: 'ok',
        route: 'act',
        contracts: [
          {
            action_type: 'tool_call',
            payload: {
              source_hash: ctx.config.source_hash,
              request: ctx.config.request ?? { a: 2, b: 3 },
              tool_name: 'add',
              ...(ctx.config.kind ? { kind: ctx.config.kind } : {}),
            } as Json,
          },
        ],
      };
    }
    return { kind: 'ok', route: 'done', writes: { messages: done[0]!.status } };
  },
};

describeEachStore('engine actions through sources', (factory) => {
  test('a tool contract is executed as a durable source invocation linked to run, node and contract', async () => {
    const { store, dispose } = await factory.open();
    const { url, server } = await toyServer();
    try {
      const source = await putResponseSource(store, {
        version: 1,
        label: 'adder',
        interface: {
          name: 'http_json',
          method: 'POST',
          url_env: 'ADDER_URL',
          path: '/add',
          timeout_ms: 5000,
        },
      });
      const engine = createEngine(store, { actions: sourcesExecutor(store, { env: { ADDER_URL: url } }) });
      engine.register(sourceReason as NodeType<never>);
      engine.register(toolNode as NodeType<never>);
      const out = await engine.start(graphFor(source.hash));
      assert.equal(out.status, 'completed');
      const run = await engine.getRun(out.run_id);
      const [c] = run.completed_executions;
      assert.equal(c?.status, 'COMPLETED');
      assert.deepEqual(c?.result, { sum: 5 });
      assert.equal(c?.observation, '{"sum":5}');
      const { items } = await listSourceInvocations(store, { run_id: out.run_id });
      assert.equal(items.length, 1);
      assert.equal(items[0]?.contract_id, c?.contract_id);
      assert.equal(items[0]?.workflow_node_id, 'tool');
      assert.equal(items[0]?.status, 'succeeded');
      assert.equal(items[0]?.tool_name, 'add');
    } finally {
      server.close();
      await dispose();
    }
  });

  test('a failing source call moves the contract to FAILED with the failure class, and is recorded', async () => {
    const { store, dispose } = await factory.open();
    const { url, server } = await toyServer();
    try {
      const source = await putResponseSource(store, {
        version: 1,
        label: 'broken',
        interface: {
          name: 'http_json',
          method: 'POST',
          url_env: 'ADDER_URL',
          path: '/broken',
          timeout_ms: 5000,
        },
      });
      const engine = createEngine(store, { actions: sourcesExecutor(store, { env: { ADDER_URL: url } }) });
      engine.register(sourceReason as NodeType<never>);
      engine.register(toolNode as NodeType<never>);
      const out = await engine.start(graphFor(source.hash));
      const run = await engine.getRun(out.run_id);
      const [c] = run.completed_executions;
      assert.equal(c?.status, 'FAILED');
      assert.match(c?.error_message ?? '', /^http_status: /);
      assert.equal(c?.error?.code, 'SOURCE_FAILED');
      assert.equal(c?.error?.retryable, true);
      assert.equal(c?.error?.details.failure_class, 'http_status');
      assert.deepEqual(run.state.messages, ['FAILED']);
      const { items } = await listSourceInvocations(store, { run_id: out.run_id });
      assert.deepEqual(
        items.map((i) => [i.status, i.failure_class, i.contract_id]),
        [['failed', 'http_status', c?.contract_id]],
      );
    } finally {
      server.close();
      await dispose();
    }
  });

  test('secrets a leaky upstream echoes reach neither the contract result nor any table of the store', async () => {
    const { store, dispose } = await factory.open();
    const { url, server } = await toyServer();
    try {
      const leaky = (path: string) =>
        putResponseSource(store, {
          version: 1,
          label: 'leaky',
          interface: {
            name: 'http_json',
            method: 'POST',
            url_env: 'ADDER_URL',
            path,
            timeout_ms: 5000,
            bearer_token_env: 'ADDER_URL_TOKEN',
          },
        });
      const env = { ADDER_URL: url, ADDER_URL_TOKEN: SECRET };
      for (const [path, status] of [
        ['/leaky', 'COMPLETED'],
        ['/leaky-fail', 'FAILED'],
      ] as const) {
        const engine = createEngine(store, { actions: sourcesExecutor(store, { env }) });
        engine.register(sourceReason as NodeType<never>);
        engine.register(toolNode as NodeType<never>);
        const out = await engine.start(graphFor((await leaky(path)).hash));
        const [c] = (await engine.getRun(out.run_id)).completed_executions;
        assert.equal(c?.status, status);
        assert.equal(JSON.stringify(c).includes(SECRET), false, 'the contract carries no secret');
      }
      const llm = await putResponseSource(store, {
        version: 1,
        label: 'leaky_llm',
        interface: { name: 'llm_chat_completions', model: 'm', schema_delivery: 'prompt_only' },
      });
      const engine = createEngine(store, {
        actions: sourcesExecutor(store, {
          env: { NOEMA_LLM_BASE_URL: `${url}/llm`, NOEMA_LLM_API_KEY: SECRET },
        }),
      });
      engine.register(sourceReason as NodeType<never>);
      engine.register(toolNode as NodeType<never>);
      const request = { messages: [{ role: 'user', content: 'hi' }] };
      const out = await engine.start(graphFor(llm.hash, request, 'llm_generation'));
      const [c] = (await engine.getRun(out.run_id)).completed_executions;
      assert.match(c?.error_message ?? '', /^protocol: .*upstream says \[REDACTED\]/);
      const { tables, text } = await everyStoredRow(store);
      // The LLM trace is on the invocation row (the llm_calls view reads it there).
      for (const t of ['engine_contracts', 'engine_journal', 'source_invocations', 'llm_call_chunks']) {
        assert.ok(tables.includes(t), `${t} is scanned`);
      }
      assert.ok(text.includes('Bearer [REDACTED]'), 'the echoed header is kept, redacted');
      assert.equal(text.includes(SECRET), false, 'the secret string is stored nowhere');
    } finally {
      server.close();
      await dispose();
    }
  });
  test('the contract moves commit with others: RUNNING with the running row, COMPLETED with the run’s next commit after the finished row', async () => {
    const { store: raw, dispose } = await factory.open();
    const { url, server } = await toyServer();
    try {
      const source = await putResponseSource(raw, {
        version: 1,
        label: 'adder',
        interface: {
          name: 'http_json',
          method: 'POST',
          url_env: 'ADDER_URL',
          path: '/add',
          timeout_ms: 5000,
        },
      });
      const { store, txs } = recordingTransactions(raw);
      const engine = createEngine(store, { actions: sourcesExecutor(store, { env: { ADDER_URL: url } }) });
      engine.register(sourceReason as NodeType<never>);
      engine.register(toolNode as NodeType<never>);
      const out = await engine.start(graphFor(source.hash));
      const [c] = (await engine.getRun(out.run_id)).completed_executions;
      assert.equal(c?.status, 'COMPLETED');
      const has = (sqls: string[], re: RegExp) => sqls.some((q) => re.test(q));
      const contractMove = /^UPDATE engine_contracts/;
      const running = txs.filter((t) => has(t, /^INSERT INTO source_invocations/));
      const finished = txs.filter((t) => has(t, /^UPDATE source_invocations SET status/));
      assert.equal(running.length, 1);
      assert.equal(finished.length, 1);
      assert.ok(has(running[0]!, contractMove), 'RUNNING is committed with the running row');
      // The finished row is the outcome's durable record (recovery reads it): the settle rides on the
      // run's next commit, the step that used the result, not on a statement of the finish's own.
      assert.equal(has(finished[0]!, contractMove), false, 'the finished row commits alone');
      const after = txs.slice(txs.indexOf(finished[0]!) + 1);
      const settle = after.find((t) => has(t, contractMove));
      assert.ok(
        settle && has(settle, /^INSERT INTO engine_journal/),
        'COMPLETED is committed with the next step',
      );
      assert.equal(txs.filter((t) => has(t, contractMove)).length, 2, 'no contract move commits on its own');
      assert.deepEqual(
        c?.transitions.map((t) => `${t.to}@${t.actor}`),
        ['PENDING@node:reason', 'RUNNING@node:tool', 'COMPLETED@executor'],
      );
    } finally {
      server.close();
      await dispose();
    }
  });
});
