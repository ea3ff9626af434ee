/**
 * `noema agent chat`: a terminal conversation with an agent. Streams each reply's events (thinking,
 * tool calls, memories, the answer) and asks ECS forms field by field, then continues the run.
 */
import { createInterface } from 'node:readline';
import { loadConfig } from '../../../app/config.ts';
import { openNoemaStore } from '../../../app/open.ts';
import { isNoemaError } from '../../../core/errors.ts';
import type { SessionEvent, TurnResult } from '../../../runtimes/agent/index.ts';
import { coerceAnswer } from '../../forms/schema-form.ts';
import { resolveAgentFile } from '../agent-files.ts';
import { type Command, type CommandIO, DB_FLAG, EXIT_OK } from '../command.ts';
import { looksLikeFile, requirePath } from '../files.ts';

/** Lines of stdin on demand; `null` at end of input. */
function lineReader(): { next(prompt: string): Promise<string | null>; close(): void } {
  const rl = createInterface({ input: process.stdin, terminal: false });
  const queued: string[] = [];
  const waiting: Array<(line: string | null) => void> = [];
  let ended = false;
  rl.on('line', (line) => {
    const w = waiting.shift();
    if (w) w(line);
    else queued.push(line);
  });
  rl.on('close', () => {
    ended = true;
    for (const w of waiting.splice(0)) w(null);
  });
  return {
    next(prompt) {
      if (process.stdin.isTTY) process.stdout.write(prompt);
      if (queued.length > 0) return Promise.resolve(queued.shift()!);
      if (ended) return Promise.resolve(null);
      return new Promise((resolve) => waiting.push(resolve));
    },
    close: () => rl.close(),
  };
}

const clip = (v: unknown, n = 200) => {
  const s = typeof v === 'string' ? v : JSON.stringify(v);
  return s.length > n ? `${s.slice(0, n)}…` : s;
};

function printer(io: CommandIO): (e: SessionEvent) => void {
  return (e) => {
    const d = e.data;
    if (e.event === 'thinking') io.out(`  (thinking, ${d.mode}) ${clip(d.thinking)}`);
    else if (e.event === 'tool_result')
      io.out(
        `  [tool] ${d.name} ${clip(d.args)} → ${d.status} ${d.status === 'COMPLETED' ? clip(d.result) : clip(d.error_message)}`,
      );
    else if (e.event === 'memory_saved') io.out(`  [memory] saved #${d.memory_id}: ${clip(d.text)}`);
    else if (e.event === 'text') io.out(`agent> ${d.text}`);
    else if (e.event === 'error') io.out(`error: ${d.code}: ${d.message}`);
  };
}

async function askForm(io: CommandIO, lines: ReturnType<typeof lineReader>, form: Record<string, unknown>) {
  const fields = (form.fields ?? {}) as {
    properties?: Record<string, Record<string, unknown>>;
    required?: string[];
  };
  io.out(`[form] ${form.title}${form.description ? ` — ${form.description}` : ''}`);
  const props = Object.entries(fields.properties ?? {});
  if (props.length === 0) {
    const line = await lines.next('answer (JSON)> ');
    if (line === null) return null;
    try {
      return JSON.parse(line) as Record<string, unknown>;
    } catch {
      return line as unknown as Record<string, unknown>;
    }
  }
  const typed: Record<string, string> = {};
  for (const [name, schema] of props) {
    const hint = Array.isArray(schema.enum)
      ? ` (${schema.enum.join('|')})`
      : schema.type
        ? ` (${schema.type})`
        : '';
    const line = await lines.next(`  ${name}${hint}: `);
    if (line === null) return null;
    typed[name] = line;
  }
  // The same coercion (Ajv coerceTypes) as the browser's ECS form; the runtime checks the answer.
  return coerceAnswer(fields, typed).value;
}

export const agentChatCommand: Command = {
  path: ['agent', 'chat'],
  summary: 'Talk to an agent in the terminal (streams replies, shows tool calls, asks ECS forms)',
  args: [
    {
      name: 'agent',
      required: true,
      description: 'an agent label, a definition hash, or an agent.json file',
    },
  ],
  flags: {
    user: {
      type: 'string',
      value: 'id',
      description: 'user id the agent remembers',
      default: '$USER or "default"',
    },
    mode: {
      type: 'string',
      value: 'mode',
      description: 'fast | deep | adapt for every message',
      default: "the definition's",
    },
    db: DB_FLAG,
  },
  example: 'noema agent chat calculator --user ada',
  async run({ flags, positionals, io }) {
    const { createAgentRuntime } = await import('../../../runtimes/agent/index.ts');
    const agent = positionals[0]!;
    const isFile = looksLikeFile(agent);
    if (isFile) requirePath(agent);
    const store = await openNoemaStore(loadConfig({ db: flags.db as string | undefined }));
    const { agentReasoningMemory } = await import('../../mcp/agent-memory.ts');
    const runtime = await createAgentRuntime(store, { reasoningMemory: agentReasoningMemory(store) });
    const lines = lineReader();
    try {
      let ref: Record<string, unknown>;
      if (isFile)
        ref = { agent_ref: { hash: (await runtime.putAgent(await resolveAgentFile(store, agent))).hash } };
      else if (/^[0-9a-f]{64}$/.test(agent)) ref = { agent_ref: { hash: agent } };
      else ref = { agent_label: agent };
      const user_id = (flags.user as string | undefined) ?? process.env.USER ?? 'default';
      const session = await runtime.createSession({ ...ref, user_id });
      io.out(`session ${session.session_id} (user ${user_id}); type a message, /quit to leave`);
      const print = printer(io);
      const mode = flags.mode as string | undefined;
      for (;;) {
        const content = await lines.next('you> ');
        if (content === null || content.trim() === '/quit') break;
        if (content.trim() === '') continue;
        let turn: TurnResult;
        try {
          turn = await runtime.sendMessage(session.session_id, { content, ...(mode ? { mode } : {}) }, print);
          // ECS forms: ask, validate (re-ask on a schema error, a few times), continue.
          while (turn.status === 'waiting') {
            const waiting = turn.outcome.waiting[0]!;
            const form = (waiting.payload as { form?: Record<string, unknown> }).form ?? {};
            let recorded = false;
            for (let tries = 0; tries < 3 && !recorded; tries++) {
              const response = await askForm(io, lines, form);
              if (response === null) return EXIT_OK;
              try {
                await runtime.respondEcs({
                  session_id: session.session_id,
                  contract_id: waiting.contract_id,
                  response,
                });
                recorded = true;
              } catch (err) {
                if (!isNoemaError(err) || err.code !== 'SCHEMA_INVALID') throw err;
                io.out(`  invalid answer: ${err.message}`);
              }
            }
            if (!recorded) {
              io.out('  no valid answer; the session stays waiting on the form');
              return EXIT_OK;
            }
            turn = await runtime.continueEcs({ session_id: session.session_id }, print);
          }
        } catch (err) {
          if (!isNoemaError(err)) throw err;
          io.out(`error: ${err.code}: ${err.message}`);
        }
      }
      return EXIT_OK;
    } finally {
      lines.close();
      await runtime.close();
      await store.close();
    }
  },
};
