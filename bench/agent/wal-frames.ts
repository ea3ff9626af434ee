/**
 * `node bench/agent/wal-frames.ts [interactions=20]`: the pages SQLite writes per agent interaction
 * (the agent bench's message with one MCP tool call), counted in the write-ahead log, and which
 * table or index each page belongs to. Each commit appends every page it changed to the log as a
 * frame (two system calls and a checksum each), so this is what the interaction's commits cost the
 * file, independent of the machine's load.
 *
 * After a warm-up on one session, the log is emptied (a TRUNCATE checkpoint on a connection of
 * this script's own) and `interactions` messages are sent on a second session: fewer commits than
 * make the store ask its checkpoint worker for a copy (`COMMITS_PER_CHECKPOINT`), so every frame
 * they wrote is still in the log. The frames' page numbers are then mapped to their b-trees with
 * SQLite's `dbstat` table ("page 1" is the database header: it changes whenever the file grows).
 */
import { readFileSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import { startFixtureHttpServer } from '../../src/dev/mcp-fixture-server.ts';
import { startScriptedModel } from '../../src/dev/scripted-model/index.ts';
import { createAgentRuntime } from '../../src/runtimes/agent/index.ts';
import { COMMITS_PER_CHECKPOINT } from '../../src/store/sqlite/checkpointer.ts';
import { BENCH_AGENT_SCRIPT } from '../../src/testing/bench-agent.ts';
import { openTestStore } from '../../src/testing/stores.ts';
import { putBenchAgent } from '../lib/agent-interaction.ts';

const n = Number(process.argv[2] ?? 20);
const WAL_HEADER = 32;
const FRAME_HEADER = 24;

/** The log's frames: each one's page number, and how many frames end a commit. */
function framesOf(wal: Buffer): { pages: number[]; commits: number } {
  if (wal.length < WAL_HEADER) return { pages: [], commits: 0 };
  const pageSize = wal.readUInt32BE(8);
  const pages: number[] = [];
  let commits = 0;
  for (let at = WAL_HEADER; at + FRAME_HEADER + pageSize <= wal.length; at += FRAME_HEADER + pageSize) {
    pages.push(wal.readUInt32BE(at));
    // A commit's last frame records the database's size in pages after it; the others, 0.
    if (wal.readUInt32BE(at + 4) !== 0) commits++;
  }
  return { pages, commits };
}

const model = await startScriptedModel({ script: BENCH_AGENT_SCRIPT as never });
const mcp = await startFixtureHttpServer();
const env = { NOEMA_LLM_BASE_URL: model.url, NOEMA_LLM_MODEL: 'scripted', BENCH_MCP_URL: mcp.url };
const { store, dispose } = await openTestStore('sqlite');
const runtime = await createAgentRuntime(store, { env });
const side = new DatabaseSync(store.location);
try {
  const { hash } = await putBenchAgent(store, runtime);
  const session = async () =>
    (await runtime.createSession({ agent_ref: { hash }, user_id: 'bench' })).session_id;
  const warm = await session();
  for (let i = 0; i < 10; i++) await runtime.sendMessage(warm, { content: 'add 2 and 3' });
  const measured = await session();
  await runtime.sendMessage(measured, { content: 'add 2 and 3' });
  side.exec('PRAGMA busy_timeout = 5000');
  side.prepare('PRAGMA wal_checkpoint(TRUNCATE)').get();
  for (let i = 0; i < n; i++) {
    const turn = await runtime.sendMessage(measured, { content: 'add 2 and 3' });
    if (turn.response !== 'The sum is 5.') throw new Error(`unexpected reply ${turn.response}`);
  }
  const { pages, commits } = framesOf(readFileSync(`${store.location}-wal`));
  if (commits >= COMMITS_PER_CHECKPOINT)
    throw new Error(
      `${commits} commits: the checkpoint worker may have copied the log; use fewer interactions`,
    );
  const owner = new Map<number, string>();
  for (const r of side.prepare('SELECT name, pageno FROM dbstat').all() as Array<{
    name: string;
    pageno: number;
  }>)
    owner.set(r.pageno, r.name);
  const byTree = new Map<string, number>();
  for (const p of pages) {
    const name = p === 1 ? 'page 1 (header)' : (owner.get(p) ?? '(free list)');
    byTree.set(name, (byTree.get(name) ?? 0) + 1);
  }
  console.log(
    `[sqlite] per interaction: ${(pages.length / n).toFixed(1)} pages written to the log in ${(commits / n).toFixed(1)} commits (${n} interactions)`,
  );
  for (const [name, count] of [...byTree].sort((a, b) => b[1] - a[1]))
    console.log(`${(count / n).toFixed(2).padStart(7)}  ${name}`);
} finally {
  side.close();
  await runtime.close();
  await dispose();
  await model.close();
  await mcp.close();
}
