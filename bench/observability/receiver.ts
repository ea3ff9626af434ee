/**
 * A local OTLP/HTTP receiver in a process of its own, as a collector is: it reads each POST whole
 * and answers 200, counting requests and bytes (`GET /stats`). Its work is not the bench's process's.
 */
import { spawn } from 'node:child_process';

const RECEIVER = `
const { createServer } = require('node:http');
const state = { requests: 0, bytes: 0 };
const server = createServer((req, res) => {
  if (req.method === 'GET') return res.end(JSON.stringify(state));
  req.on('data', (c) => { state.bytes += c.length; });
  req.on('end', () => {
    state.requests++;
    res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
  });
});
server.listen(0, '127.0.0.1', () => console.log('RECEIVER=http://127.0.0.1:' + server.address().port));
`;

export async function startReceiver(): Promise<{
  url: string;
  stats(): Promise<{ requests: number; bytes: number }>;
  close(): Promise<void>;
}> {
  const child = spawn(process.execPath, ['-e', RECEIVER], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /RECEIVER=(\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the OTLP receiver exited (${code})`)));
  });
  return {
    url,
    stats: async () => (await fetch(`${url}/stats`)).json() as Promise<{ requests: number; bytes: number }>,
    close: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
