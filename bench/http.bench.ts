/**
 * The HTTP surface's cost: `GET /healthz`, a catalog detail route (`GET /source-invocations/:id`)
 * and an MCP tool call (`POST /mcp/world`, `get_json_schema`) on the real Noema server (Hono, auth
 * guard, negotiation, links, budget; the MCP SDK's server and transport) against a bare node:http
 * handler answering the same JSON after the same store call (the floor), in one run, on SQLite. Load
 * comes from autocannon in its own process (10 connections, fixed duration, 127.0.0.1); each side is
 * measured in alternating rounds and the median round is reported. Ratios: req/s Noema ÷ floor
 * (1 = no cost; below 1 = slower than the floor), and beside it the server's CPU per request
 * answered (this process's, where both servers run, over the load), Noema ÷ floor.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startToyServices, toySources } from '../src/dev/toys/index.ts';
import { WORLD_PATCH_SCHEMA_HASH } from '../src/runtimes/world/index.ts';
import { getJsonSchema, getSourceInvocation, invokeSource, putResponseSource } from '../src/sources/index.ts';
import { startNoemaHttp } from '../src/surfaces/http/start.ts';
import { openTestStore } from '../src/testing/stores.ts';
import type { Bench } from './lib/harness.ts';

const TOKEN = 'bench-token-0123456789abcdef';
const MCP_ACCEPT = 'application/json, text/event-stream';
/** An MCP call answered from the store: the world patch schema, stored in every store. */
const MCP_CALL = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'get_json_schema', arguments: { hash: WORLD_PATCH_SCHEMA_HASH } },
});
const AUTOCANNON = fileURLToPath(new URL('../node_modules/autocannon/autocannon.js', import.meta.url));

interface Load {
  rps: number;
  p99: number;
  /** This process's CPU (where both servers run) per request answered, µs. */
  cpuUs: number;
}

/** Runs autocannon in a child process for `seconds` (bounded by a kill timer) and reads its JSON. */
function load(url: string, seconds: number, post?: string): Promise<Load> {
  return new Promise((resolve, reject) => {
    const body = post
      ? ['-m', 'POST', '-H', 'content-type=application/json', '-H', `accept=${MCP_ACCEPT}`, '-b', post]
      : [];
    const child = spawn(process.execPath, [
      AUTOCANNON,
      '-c',
      '10',
      '-d',
      String(seconds),
      '-j',
      '-H',
      `authorization=Bearer ${TOKEN}`,
      ...body,
      url,
    ]);
    const cpu0 = process.cpuUsage();
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), (seconds + 20) * 1000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      const cpu = process.cpuUsage(cpu0);
      try {
        const r = JSON.parse(out) as {
          requests: { average: number; total: number };
          latency: { p99: number };
          non2xx: number;
          errors: number;
        };
        if (r.non2xx > 0 || r.errors > 0)
          return reject(new Error(`${url}: ${r.non2xx} non-2xx, ${r.errors} errors`));
        resolve({
          rps: r.requests.average,
          p99: r.latency.p99,
          cpuUs: (cpu.user + cpu.system) / Math.max(1, r.requests.total),
        });
      } catch {
        reject(new Error(`autocannon exited ${code}: ${out.slice(0, 200)}`));
      }
    });
  });
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? 0;
}

const bench: Bench = {
  name: 'http',
  description:
    'Noema HTTP (Hono) vs a bare node:http handler answering the same JSON (floor), autocannon, SQLite',
  async run(ctx) {
    const { store, dispose } = await openTestStore('sqlite');
    const toys = await startToyServices();
    const seconds = ctx.quick ? 1 : 3;
    const rounds = ctx.quick ? 1 : 3;
    let floor: Server | null = null;
    const noema = await startNoemaHttp({
      store,
      host: '127.0.0.1',
      port: 0,
      portSetting: '--port',
      token: TOKEN,
      dataDir: mkdtempSync(join(tmpdir(), 'noema-bench-')),
    });
    try {
      const weather = await putResponseSource(store, toySources.weather);
      const call = await invokeSource(store, {
        source: weather,
        request: { turn: 1 },
        kind: 'ambient_context',
        env: toys.env,
        links: { attempt_id: 'a' },
      });
      const id = call.source_invocation_id;
      // The floor does the same store work and answers the same bytes, without the framework.
      floor = createServer(async (req, res) => {
        let body: string;
        if (req.url === '/healthz') {
          await store.get('SELECT 1 AS ok');
          body = JSON.stringify({ ok: true });
        } else if (req.url === '/mcp') {
          // A bare JSON-RPC answer of the same tool result: the request read and parsed, the record
          // read, the same result built (its text and structured content).
          let text = '';
          for await (const chunk of req) text += chunk;
          const call = JSON.parse(text) as { id: number; params: { arguments: { hash: string } } };
          const record = await getJsonSchema(store, call.params.arguments.hash);
          const result = {
            content: [{ type: 'text', text: JSON.stringify(record) }],
            structuredContent: record,
          };
          body = JSON.stringify({ result, jsonrpc: '2.0', id: call.id });
        } else {
          const record = await getSourceInvocation(store, id);
          body = JSON.stringify({
            ...record,
            links: {
              self: `/source-invocations/${id}`,
              response_source: `/response-sources/hash/${record.source_hash}`,
            },
          });
        }
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
        res.end(body);
      });
      await new Promise<void>((resolve) => floor!.listen(0, '127.0.0.1', resolve));
      const floorUrl = `http://127.0.0.1:${(floor.address() as AddressInfo).port}`;
      const cases = [
        { name: 'GET /healthz', noema: `${noema.url}/healthz`, floor: `${floorUrl}/healthz` },
        {
          name: 'GET /source-invocations/:id',
          noema: `${noema.url}/source-invocations/${id}`,
          floor: `${floorUrl}/detail`,
        },
        {
          name: 'POST /mcp/world (tools/call get_json_schema)',
          noema: `${noema.url}/mcp/world`,
          floor: `${floorUrl}/mcp`,
          post: MCP_CALL,
        },
      ];
      for (const c of cases) {
        const n: Load[] = [];
        const f: Load[] = [];
        await load(c.noema, 1, c.post); // warm both sides the same way
        await load(c.floor, 1, c.post);
        for (let r = 0; r < rounds; r++) {
          f.push(await load(c.floor, seconds, c.post));
          n.push(await load(c.noema, seconds, c.post));
        }
        const rps = median(n.map((x) => x.rps));
        const floorRps = median(f.map((x) => x.rps));
        const p99 = median(n.map((x) => x.p99));
        const floorP99 = median(f.map((x) => x.p99));
        ctx.row({
          case: c.name,
          metric: 'requests/s (median of rounds)',
          unit: 'req/s',
          value: rps,
          anchor: 'node:http floor',
          anchor_value: floorRps,
          ratio: Math.round((rps / floorRps) * 1000) / 1000,
        });
        const cpu = median(n.map((x) => x.cpuUs));
        const floorCpu = median(f.map((x) => x.cpuUs));
        ctx.row({
          case: c.name,
          metric:
            "server CPU per request, µs (median of rounds; the bench process's, where both servers run)",
          unit: 'µs',
          value: cpu,
          anchor: 'node:http floor',
          anchor_value: floorCpu,
          ratio: Math.round((cpu / floorCpu) * 1000) / 1000,
        });
        ctx.row({
          case: c.name,
          metric: 'p99 latency (median of rounds)',
          unit: 'ms',
          value: p99,
          anchor: 'node:http floor',
          anchor_value: floorP99,
        });
      }
      ctx.log(
        `autocannon: 10 connections, ${seconds} s × ${rounds} alternating rounds per side, after a 1 s warm-up each`,
      );
    } finally {
      floor?.close();
      await noema.close();
      await toys.close();
      await dispose();
    }
  },
};

export default bench;
