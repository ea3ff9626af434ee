/**
 * The world bench's HTTP client, a process of its own that imports nothing of Noema (so its heap,
 * which the chunks it receives pass through, stays small and its collections short):
 * `node get-world-client.ts <base-url> <token> <slug> <turns.json>` asks `GET
 * /worlds/:slug/turns/:n` for each turn, one request after another over a kept-alive connection,
 * each timed from sending to the body's last byte (read and dropped: nothing is concatenated), and
 * prints `{ wall: µs[], bytes }` as one JSON line. Every request counts.
 */
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';

/** One GET, timed to the body's end: [µs, status, the body's first bytes, size]. */
function get(agent: Agent, url: string, token: string): Promise<[number, number, string, number]> {
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const req = request(url, {
      agent,
      headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
    });
    req.on('response', (res) => {
      let head = '';
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        if (head.length < 200) head += chunk.toString('latin1', 0, 200);
        size += chunk.length;
      });
      res.on('end', () =>
        resolve([Number(process.hrtime.bigint() - t0) / 1000, res.statusCode ?? 0, head, size]),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

const [base, token, slug, turnsFile] = process.argv.slice(2) as [string, string, string, string];
const turns = JSON.parse(readFileSync(turnsFile, 'utf8')) as number[];
const agent = new Agent({ keepAlive: true, maxSockets: 1 });
const wall: number[] = [];
let bytes = 0;
for (const turn of turns) {
  const [us, status, head, size] = await get(
    agent,
    `${base}/worlds/${encodeURIComponent(slug)}/turns/${turn}`,
    token,
  );
  if (status !== 200 || !head.includes(`"turn":${turn},`))
    throw new Error(`GET turn ${turn}: ${status} ${head.slice(0, 160)}`);
  wall.push(us);
  bytes ||= size;
}
agent.destroy();
process.stdout.write(`${JSON.stringify({ wall, bytes })}\n`);
