/**
 * `node bench/sources/profile.ts [traced|bare] [calls] [out.cpuprofile]`: one side of the sources
 * bench's tracing row — the streamed LLM call made durable with `invokeSource`, or the same call
 * planned and executed bare — many times after warm-up on the first selected store, against the
 * scripted model in a process of its own; prints wall and CPU per call, and with a path writes a
 * CPU profile of the timed calls, to set beside the other side's.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { invokeSource, putJsonSchema, putResponseSource } from '../../src/sources/index.ts';
import { llmChatCompletionsSource } from '../../src/sources/llm/source.ts';
import { startCli } from '../../src/testing/cli.ts';
import { openTestStore, selectedStores } from '../../src/testing/stores.ts';

const SCHEMA = { type: 'object', required: ['kind'], properties: { kind: { type: 'string' } } };
const REQUEST = {
  messages: [
    { role: 'system' as const, content: 'You are Bob.' },
    { role: 'user' as const, content: 'Act.' },
  ],
};
const REPLY = { kind: 'final_patch', patch: { narration: 'Bob waits by the vending machine.', effects: [] } };

const side = process.argv[2] ?? 'traced';
const calls = Number(process.argv[3] ?? 2000);
const out = process.argv[4];
const dir = mkdtempSync(join(tmpdir(), 'noema-sources-profile-'));
const scriptFile = join(dir, 'script.json');
writeFileSync(scriptFile, JSON.stringify({ rules: [], default: { json: REPLY, chunk_chars: 16 } }));
const model = startCli(['dev', 'scripted-model', '--script', scriptFile, '--port', '0']);
const [, modelUrl] = await model.waitFor(/NOEMA_LLM_BASE_URL=(\S+)/);
const env = { NOEMA_LLM_BASE_URL: modelUrl! };
const { store, dispose } = await openTestStore(selectedStores()[0]!);
try {
  const source = await putResponseSource(store, {
    version: 1,
    interface: { name: 'llm_chat_completions', model: 'scripted', schema_delivery: 'response_format' },
  });
  const resultSchema = await putJsonSchema(store, SCHEMA);
  const traced = async () => {
    const r = await invokeSource(store, {
      source,
      request: REQUEST,
      kind: 'llm_generation',
      resultSchema,
      env,
    });
    if (!r.ok) throw r.error;
  };
  const bare = async () => {
    const plan = await llmChatCompletionsSource.plan({
      iface: source.content.interface,
      store,
      request: REQUEST,
      kind: 'llm_generation',
      links: {},
      resultSchema,
      env,
      timeoutMs: undefined,
    });
    await plan.execute({
      signal: new AbortController().signal,
      source_invocation_id: 'bench',
      timedOut: () => false,
      cancelled: () => false,
      progressed: () => {},
    });
  };
  const op = side === 'traced' ? traced : bare;
  for (let i = 0; i < 300; i++) await op();
  const session = out ? new Session() : null;
  if (session) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 100 });
    await session.post('Profiler.start');
  }
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < calls; i++) await op();
  const c = process.cpuUsage(c0);
  if (session && out) {
    const { profile } = await session.post('Profiler.stop');
    writeFileSync(out, JSON.stringify(profile));
    session.disconnect();
  }
  console.log(
    `${side}: ${(((performance.now() - t0) / calls) * 1000).toFixed(0)} µs wall, ${((c.user + c.system) / calls).toFixed(0)} µs CPU per call`,
  );
} finally {
  await dispose();
  model.child.kill('SIGTERM');
  await model.exited;
}
