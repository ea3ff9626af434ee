/**
 * `noema dev up`: the scripted model, the toy park services and the MCP fixture together on free
 * ports of 127.0.0.1, their settings written to `<data dir>/dev.env` (which every other command
 * reads when present), until Ctrl-C/SIGTERM stops them all and removes the file.
 */
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { loadConfig } from '../../../app/config.ts';
import { devEnvPath, formatDevEnv } from '../../../app/dev-env.ts';
import { isNoemaError, NoemaError } from '../../../core/errors.ts';
import { type Command, EXIT_OK } from '../command.ts';
import { requirePath } from '../files.ts';
import { untilSignal } from '../signals.ts';

interface Started {
  env: Record<string, string>;
  close(): Promise<void>;
}

/** The demo's services: one model endpoint in front of its three scripts (park, agent, flowchart). */
async function demoServices(): Promise<Started> {
  const { startDemoServices } = await import('../demo/services.ts');
  const services = await startDemoServices({ realModel: null });
  return { env: services.servedEnv, close: () => services.close() };
}

/** One scripted model answering from `path`, beside the toys and the MCP fixture. */
async function scriptedServices(path: string): Promise<Started> {
  const { loadScript, startScriptedModel } = await import('../../../dev/scripted-model/index.ts');
  const { startToyServices } = await import('../../../dev/toys/index.ts');
  const { startFixtureHttpServer } = await import('../../../dev/mcp-fixture-server.ts');
  let script: ReturnType<typeof loadScript>;
  try {
    script = loadScript(path);
  } catch (err) {
    if (!isNoemaError(err)) throw err;
    throw new NoemaError('USAGE', `--script is invalid: ${err.message}`, {
      details: { flag: '--script', ...err.details },
      hint: 'see docs/sources.md ("Scripted model") for the script format',
    });
  }
  const closers: Array<() => Promise<void>> = [];
  const close = async () => {
    for (const c of closers.reverse()) await c().catch(() => {});
  };
  try {
    const model = await startScriptedModel({ script, record: false });
    closers.push(() => model.close());
    const toys = await startToyServices({ vendingStock: 1 });
    closers.push(() => toys.close());
    const mcp = await startFixtureHttpServer();
    closers.push(() => mcp.close());
    return {
      env: {
        NOEMA_LLM_BASE_URL: model.url,
        NOEMA_LLM_MODEL: 'scripted',
        ...toys.env,
        NOEMA_MCP_FIXTURE_URL: mcp.url,
      },
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

export const devUpCommand: Command = {
  path: ['dev', 'up'],
  summary:
    'Start the scripted model, toy services and MCP fixture on free ports; write their settings to <data dir>/dev.env, read by every other command',
  flags: {
    script: {
      type: 'string',
      value: 'file',
      description: 'a model script for the scripted model',
      default: "the demo's scripts",
    },
  },
  example: 'noema dev up',
  async run({ flags, io }) {
    const stopped = untilSignal();
    const script = typeof flags.script === 'string' ? requirePath(flags.script, '--script') : undefined;
    // The data directory only: the settings this process needs are the ones it is about to start.
    const { dataDir } = loadConfig({}, { ...process.env });
    const services = script ? await scriptedServices(script) : await demoServices();
    const path = devEnvPath(dataDir);
    const text = formatDevEnv(services.env, process.pid);
    try {
      mkdirSync(dataDir, { recursive: true });
      // Written whole, then renamed: a command never reads half a file.
      writeFileSync(`${path}.tmp`, text);
      renameSync(`${path}.tmp`, path);
    } catch (err) {
      await services.close();
      throw new NoemaError('CONFIG_INVALID', `cannot write ${path}: ${(err as Error).message}`, {
        details: { setting: 'NOEMA_DATA_DIR', path },
      });
    }
    io.out(`dev services on 127.0.0.1 (model: ${script ?? "the demo's scripts"}); settings in ${path}:`);
    for (const [key, value] of Object.entries(services.env)) io.out(`${key}=${value}`);
    io.out('every noema command with this data directory reads them (the environment wins); Ctrl-C to stop');
    const signal = await stopped;
    io.out(`received ${signal}, shutting down`);
    // Removed only while it is still ours: a later `dev up` may have replaced it.
    let current: string | undefined;
    try {
      current = readFileSync(path, 'utf8');
    } catch {
      current = undefined;
    }
    if (current === text) rmSync(path, { force: true });
    await services.close();
    return EXIT_OK;
  },
};
