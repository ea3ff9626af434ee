/**
 * `noema demo`: the main job for a newcomer. On the embedded demo store it runs the park world,
 * an agent session and a flowchart against in-process scripted models and toy services, with a
 * live progress display; prints a summary; then serves the browser and prints a one-time login
 * link, its scripted models and toys still answering the runtimes it serves until it stops. The
 * orchestration lives in `../demo/`.
 */
import { rmSync } from 'node:fs';
import { loadConfig } from '../../../app/config.ts';
import { openNoemaStore } from '../../../app/open.ts';
import { NoemaError } from '../../../core/errors.ts';
import type { RunTurnResult } from '../../../runtimes/world/index.ts';
import type { Store } from '../../../store/store.ts';
import { type Command, DB_FLAG, EXIT_OK } from '../command.ts';
import { parseIntegerFlag, portSetting } from '../flags.ts';
import { assertPortFree } from '../port-free.ts';
import { serveUntilSignal } from '../serve-until-signal.ts';

export const DEMO_DB = './.noema/demo.db';

export const demoCommand: Command = {
  path: ['demo'],
  summary: 'Run the park world, an agent session and a flowchart on a demo store, then serve the browser',
  flags: {
    turns: { type: 'string', value: 'n', description: 'world turns to run', default: '5' },
    fresh: {
      type: 'boolean',
      description: 'delete the demo store file (SQLite) and start over instead of continuing',
    },
    'no-serve': { type: 'boolean', description: 'exit after the summary instead of serving the browser' },
    port: {
      type: 'string',
      value: 'port',
      description: 'port to serve on',
      default: '8787',
      env: 'NOEMA_PORT',
    },
    'real-model': {
      type: 'boolean',
      description: 'world and agent use NOEMA_LLM_BASE_URL / NOEMA_LLM_MODEL instead of the script',
    },
    db: { ...DB_FLAG, default: DEMO_DB },
  },
  async run({ flags, io }) {
    const turns =
      flags.turns === undefined ? 5 : parseIntegerFlag(String(flags.turns), '--turns', { min: 1, max: 1000 });
    const { realModelEnv } = await import('../demo/services.ts');
    // Checked before anything starts: a bad setting changes nothing.
    const realModel = flags['real-model'] ? realModelEnv(process.env) : null;
    const db = (flags.db as string | undefined) ?? (process.env.NOEMA_DB ? undefined : DEMO_DB);
    const config = loadConfig({ db, port: flags.port as string | undefined });
    // A demo that could not serve would do its work for nothing: a port in use is said at once.
    if (!flags['no-serve']) await assertPortFree(config.host, config.port, portSetting(flags));
    if (flags.fresh) {
      if (config.store.kind !== 'sqlite' || config.store.path === ':memory:')
        throw new NoemaError('USAGE', '--fresh starts over only an embedded (SQLite file) demo store', {
          hint: 'for a postgres:// store, point NOEMA_DB at a new database instead',
        });
      for (const suffix of ['', '-wal', '-shm', '-journal'])
        rmSync(`${config.store.path}${suffix}`, { force: true });
    }
    const started = performance.now();
    const store = await openNoemaStore(config);
    let outcome: Awaited<ReturnType<typeof runDemo>>;
    try {
      outcome = await runDemo(store, turns, realModel);
    } catch (err) {
      await store.close();
      throw err;
    }
    const { services, ...ran } = outcome;
    const { summaryLines } = await import('../demo/summary.ts');
    // The served kinds register on load; their paths name the pages in the summary.
    await import('../../http/kinds/index.ts');
    const { defaultCatalog } = await import('../../http/catalog/index.ts');
    const hrefOf = (kind: string, key: string) => defaultCatalog.hrefOf(kind, key);
    const result = { ...ran, seconds: (performance.now() - started) / 1000, store: store.location };
    if (flags['no-serve']) {
      for (const line of summaryLines(result, '', hrefOf)) io.out(line);
      await services.close();
      await store.close();
      return EXIT_OK;
    }
    // The served runtimes (world turns, agent messages, flowchart runs started from the browser)
    // read the operator's environment, as under `noema serve`; here the demo is the operator, so
    // they reach its scripted models and toys, which keep running until the server stops.
    Object.assign(process.env, services.servedEnv);
    await serveUntilSignal({
      store,
      config,
      portSetting: portSetting(flags),
      io,
      release: () => services.close(),
      announce: (url) => [
        ...summaryLines(result, url, hrefOf),
        '',
        `noema serving on ${url} (store: ${store.location}); Ctrl-C to stop`,
        realModel
          ? `turns, messages and flowchart runs started from the browser use ${realModel.NOEMA_LLM_MODEL} and the demo's toy services`
          : "turns, messages and flowchart runs started from the browser use the demo's scripted models and toy services",
      ],
      showTokenPath: false,
    });
    return EXIT_OK;
  },
};

async function runDemo(store: Store, turns: number, realModel: Record<string, string> | null) {
  const { startDemoServices } = await import('../demo/services.ts');
  const { DEMO_WORLD, ensureDemoWorld, demoWorldTurns, progressDescriber } = await import('../demo/world.ts');
  const { runDemoSession } = await import('../demo/agent.ts');
  const { runDemoFlow } = await import('../demo/flow.ts');
  const { runSteps } = await import('../demo/progress.ts');
  let services: Awaited<ReturnType<typeof startDemoServices>> | undefined;
  let world: ReturnType<typeof demoWorldTurns> | undefined;
  const state = {
    model: realModel?.NOEMA_LLM_MODEL ?? 'scripted',
    createdWorld: false,
    turns: [] as RunTurnResult[],
    session: undefined as Awaited<ReturnType<typeof runDemoSession>> | undefined,
    flow: undefined as Awaited<ReturnType<typeof runDemoFlow>> | undefined,
  };
  try {
    const head = await ensureDemoWorld(store);
    state.createdWorld = head.created;
    const steps = [
      {
        title: 'Start the model, toy park services and MCP fixture on 127.0.0.1',
        async run() {
          services = await startDemoServices({ realModel });
          world = demoWorldTurns(store, services.worldEnv);
          return `Services on 127.0.0.1 (model: ${services.model})`;
        },
      },
      ...Array.from({ length: turns }, (_, i) => ({
        title: `Park world: turn ${head.head_turn + i + 1}`,
        async run(status: (line: string) => void) {
          const describe = progressDescriber();
          const r = await world!.next((p) => {
            const line = describe(p);
            if (line) status(line);
          });
          if (r.status === 'failed')
            throw new NoemaError(
              'DEMO_STEP_FAILED',
              `turn ${r.turn} failed (attempt ${r.attempt_id}): ${r.failure?.code}: ${r.failure?.message}`,
              {
                details: { attempt_id: r.attempt_id, failure: r.failure ?? null },
                hint: `NOEMA_DB=${store.location} noema world log ${DEMO_WORLD} shows its trace`,
              },
            );
          state.turns.push(r);
          return `Park world: turn ${r.turn} committed, ${r.patches.length} patch(es)`;
        },
      })),
      {
        title: 'Agent session: a tool call and an ECS form',
        async run(status: (line: string) => void) {
          state.session = await runDemoSession(store, services!.agentEnv, status);
          return `Agent session: ${state.session.tool_calls.length} tool call(s), ${state.session.forms.length} form(s) answered`;
        },
      },
      {
        title: 'Flowchart run: support triage',
        async run(status: (line: string) => void) {
          state.flow = await runDemoFlow(store, services!.flowEnv, status);
          return `Flowchart run: ${state.flow.status}, ${state.flow.nodes.length} node runs`;
        },
      },
    ];
    await runSteps(steps);
    // The caller owns the services from here: they answer the served runtimes until it stops.
    return { ...state, session: state.session!, flow: state.flow!, services: services! };
  } catch (err) {
    await services?.close();
    throw err;
  } finally {
    await world?.close();
  }
}
