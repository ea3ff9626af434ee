/**
 * Requests the app cannot take (a backslash in the path, a Host with userinfo, an absolute-form
 * target of another scheme, no Host, unparsable HTTP) and JSON bodies nested past 64 levels: each
 * gets a 400 envelope and a closed connection from the served app on a real port, and the server logs one
 * line per kind of malformed request, never a stack.
 */
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { test } from 'node:test';
import { openTestStore } from '../../src/testing/stores.ts';
import { startTestHttp, TOKEN } from './helpers.ts';

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  closed: boolean;
}

/** Sends `request` bytes on a fresh socket; the answer, and whether the server closed the connection. */
function rawRequest(port: number, request: string, waitMs = 3_000): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    let data = '';
    const sock = connect(port, '127.0.0.1', () => sock.write(request));
    const done = (closed: boolean) => {
      clearTimeout(timer);
      sock.destroy();
      const [head = '', body = ''] = data.split('\r\n\r\n', 2);
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(
        lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
      );
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body, closed });
    };
    const timer = setTimeout(() => done(false), waitMs);
    sock.on('data', (d) => {
      data += d;
    });
    sock.on('end', () => done(true));
    sock.on('error', reject);
  });
}

test('every malformed request gets a 400 envelope and a closed connection, logged once per kind', async (t) => {
  const ts = await openTestStore('sqlite');
  const logged: string[] = [];
  t.mock.method(console, 'error', (...args: unknown[]) => {
    logged.push(args.map((a) => (a instanceof Error ? a.stack : String(a))).join(' '));
  });
  const http = await startTestHttp(ts.store);
  try {
    const base = http.url;
    const port = Number(new URL(base as string).port);
    const auth = `authorization: Bearer ${TOKEN}\r\n`;
    const malformed = [
      `GET /a\\b HTTP/1.1\r\nhost: x\r\n${auth}\r\n`,
      `GET /healthz HTTP/1.1\r\nhost: a@b\r\n${auth}\r\n`,
      `GET ftp://x/healthz HTTP/1.1\r\nhost: x\r\n${auth}\r\n`,
      `GET /healthz HTTP/1.1\r\nhost: [::1\r\n\r\n`,
      `GET * HTTP/1.1\r\nhost: x\r\n\r\n`,
      `GET /healthz HTTP/1.1\r\n${auth}\r\n`,
      `GET /healthz HTTP/1.1\r\nhost: x\r\nbad header\r\n\r\n`,
    ];
    // Twice each: the second of a kind is answered the same and not logged again.
    for (const request of [...malformed, ...malformed]) {
      const a = await rawRequest(port, request);
      const what = JSON.stringify(request.split('\r\n')[0]);
      assert.equal(a.status, 400, `${what}: ${a.body}`);
      assert.ok(a.closed, `${what}: the connection is closed`);
      assert.match(a.headers['content-type'] ?? '', /application\/json/, what);
      const envelope = JSON.parse(a.body) as { code: string; message: string; request_id: string };
      assert.equal(envelope.code, 'INVALID_INPUT', what);
      assert.match(envelope.message, /^malformed request: /, what);
      assert.equal(a.headers['x-request-id'], envelope.request_id, what);
    }
    // An absolute-form http:// target is a valid request and keeps its connection.
    const absolute = await rawRequest(port, `GET http://x/healthz HTTP/1.1\r\nhost: x\r\n\r\n`, 300);
    assert.equal(absolute.status, 200);
    assert.equal(absolute.closed, false);

    const all = logged.join('\n');
    assert.doesNotMatch(all, /\n\s+at /, 'no stack trace is logged');
    assert.ok(
      logged.every((l) => !l.includes('\n')),
      all,
    );
    const lines = logged.filter((l) => /malformed request/.test(l));
    assert.equal(lines.length, logged.length, all);
    assert.equal(lines.length, new Set(lines).size, `one line per kind:\n${all}`);
    assert.ok(lines.length >= 4 && lines.length <= malformed.length, all);
    assert.equal((await fetch(`${base}/healthz`)).status, 200, 'the server still serves');
  } finally {
    await http.close();
    await ts.dispose();
  }
});

test('a JSON body nested deeper than 64 levels is 400 INVALID_INPUT on every JSON route', async (t) => {
  const ts = await openTestStore('sqlite');
  const logged: string[] = [];
  t.mock.method(console, 'error', (...args: unknown[]) => {
    logged.push(args.map((a) => (a instanceof Error ? a.stack : String(a))).join(' '));
  });
  const http = await startTestHttp(ts.store);
  try {
    const base = http.url;
    const deep = (levels: number) => `${'['.repeat(levels)}1${']'.repeat(levels)}`;
    const bodies: Array<[string, string]> = [
      ['/api/flowcharts', `{"name":"deep","graph":{"nodes":${deep(10_000)},"edges":[]}}`],
      ['/agents', `{"label":"deep","definition":${deep(10_000)}}`],
      [
        '/mcp',
        `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"branchmind_init","arguments":{"workspace":"w","meta":${deep(100)}}}}`,
      ],
      ['/sessions', deep(65)],
    ];
    for (const [path, body] of bodies) {
      const res = await fetch(`${base}${path}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${TOKEN}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body,
      });
      const envelope = (await res.json()) as {
        code: string;
        message: string;
        details: { max_depth: number };
      };
      assert.equal(res.status, 400, `${path}: ${JSON.stringify(envelope)}`);
      assert.equal(envelope.code, 'INVALID_INPUT', path);
      assert.match(envelope.message, /nests deeper than 64 levels/, path);
      assert.equal(envelope.details.max_depth, 64);
    }
    const shallow = await fetch(`${base}/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: deep(64),
    });
    assert.doesNotMatch(await shallow.text(), /nests deeper/, '64 levels are allowed');
    assert.doesNotMatch(logged.join('\n'), /RangeError|Maximum call stack/);
  } finally {
    await http.close();
    await ts.dispose();
  }
});
