/**
 * `noema world apply|create|run|show|log`: author a world from a scenario bundle, run turns
 * with a progress line per subject, and read what happened. Each command opens the configured
 * store (`--db` / NOEMA_DB); sources read NOEMA_LLM_* and the url_env variables.
 */
import { existsSync, statSync } from 'node:fs';
import { loadConfig } from '../../../app/config.ts';
import { openNoemaStore } from '../../../app/open.ts';
import { NoemaError } from '../../../core/errors.ts';
import type { Store } from '../../../store/store.ts';
import { type Command, EXIT_FAILED, EXIT_OK, type FlagSpec } from '../command.ts';
import { parseIntegerFlag } from '../flags.ts';

const db: Record<string, FlagSpec> = {
  db: { type: 'string', description: 'store: file path or postgres:// URL (NOEMA_DB)' },
};

async function withStore<T>(flags: Record<string, unknown>, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = await openNoemaStore(loadConfig({ db: flags.db as string | undefined }));
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

function need(value: string | undefined, what: string, example: string): string {
  if (!value) throw new NoemaError('USAGE', `name the ${what}`, { hint: example });
  return value;
}

function intFlag(value: unknown, flag: string, min: number): number | undefined {
  return value === undefined
    ? undefined
    : parseIntegerFlag(String(value), flag, { min, max: Number.MAX_SAFE_INTEGER });
}

const isDir = (p: string) => existsSync(p) && statSync(p).isDirectory();

export const worldApplyCommand: Command = {
  path: ['world', 'apply'],
  summary: 'Put every document of a scenario bundle and assemble its scenario.json; prints the scenario hash',
  args: '<bundle-dir>',
  flags: { ...db },
  async run({ flags, positionals, io }) {
    const dir = need(positionals[0], 'bundle directory', 'noema world apply examples/park');
    const { applyBundle } = await import('../../../runtimes/world/index.ts');
    const out = await withStore(flags, (store) => applyBundle(store, dir));
    io.out(out.scenario_hash);
    return EXIT_OK;
  },
};

export const worldCreateCommand: Command = {
  path: ['world', 'create'],
  summary: 'Create a world at turn 0 from a scenario (a hash, or a bundle directory to apply first)',
  args: '<slug>',
  flags: { scenario: { type: 'string', description: 'scenario hash or bundle directory' }, ...db },
  async run({ flags, positionals, io }) {
    const slug = need(positionals[0], 'world slug', 'noema world create park --scenario examples/park');
    const scenario = need(
      flags.scenario as string | undefined,
      '--scenario',
      'noema world create park --scenario examples/park',
    );
    const { applyBundle, createWorld } = await import('../../../runtimes/world/index.ts');
    const out = await withStore(flags, async (store) => {
      const hash = isDir(scenario) ? (await applyBundle(store, scenario)).scenario_hash : scenario;
      return createWorld(store, { world_slug: slug, scenario_ref: { hash } });
    });
    io.out(`created world ${out.world_slug} at turn 0 (scenario ${out.scenario_hash})`);
    return EXIT_OK;
  },
};

export const worldRunCommand: Command = {
  path: ['world', 'run'],
  summary: 'Run turns of a world, a progress line per subject; exit 1 when an attempt fails',
  args: '<slug>',
  flags: { turns: { type: 'string', description: 'how many turns to run (default 1)' }, ...db },
  async run({ flags, positionals, io }) {
    const slug = need(positionals[0], 'world slug', 'noema world run park --turns 3');
    const turns = intFlag(flags.turns, '--turns', 1) ?? 1;
    const { createWorldRuntime } = await import('../../../runtimes/world/index.ts');
    return withStore(flags, async (store) => {
      const runtime = createWorldRuntime(store);
      try {
        for (let i = 0; i < turns; i++) {
          const r = await runtime.runTurn(
            { world_slug: slug },
            {
              onProgress: (p) => {
                if (p.kind === 'subject') io.out(`  ${p.subject_entity_id}: thinking`);
                else if (p.kind === 'tool_call') io.out(`    tool ${p.tool_name}`);
                else if (p.kind === 'patch') io.out(`  ${p.subject_entity_id}: ${p.narration}`);
              },
            },
          );
          if (r.status === 'failed') {
            io.err(`turn ${r.turn} failed: ${r.failure?.code}: ${r.failure?.message}`);
            io.err(`attempt ${r.attempt_id} (noema world log ${slug} for its trace)`);
            return EXIT_FAILED;
          }
          io.out(`turn ${r.turn} committed: ${r.patches.length} patch(es), attempt ${r.attempt_id}`);
        }
        return EXIT_OK;
      } finally {
        await runtime.close();
      }
    });
  },
};

export const worldShowCommand: Command = {
  path: ['world', 'show'],
  summary: 'Print a world at a turn (default: the latest) as JSON',
  args: '<slug>',
  flags: { turn: { type: 'string', description: 'a committed turn' }, ...db },
  async run({ flags, positionals, io }) {
    const slug = need(positionals[0], 'world slug', 'noema world show park --turn 1');
    const turn = intFlag(flags.turn, '--turn', 0);
    const { getWorld } = await import('../../../runtimes/world/index.ts');
    const w = await withStore(flags, (store) =>
      getWorld(store, { world_slug: slug, ...(turn !== undefined ? { turn } : {}) }),
    );
    io.out(JSON.stringify(w, null, 2));
    return EXIT_OK;
  },
};

export const worldLogCommand: Command = {
  path: ['world', 'log'],
  summary: "Print a world's attempts, newest first: status, patches and source invocations",
  args: '<slug>',
  flags: { ...db },
  async run({ flags, positionals, io }) {
    const slug = need(positionals[0], 'world slug', 'noema world log park');
    const { getAttempt, listAttempts } = await import('../../../runtimes/world/index.ts');
    await withStore(flags, async (store) => {
      const list = await listAttempts(store, { world_slug: slug, limit: 50 });
      for (const item of list.items) {
        const a = await getAttempt(store, { attempt_id: item.attempt_id });
        io.out(
          `turn ${a.attempted_turn} ${a.status} attempt ${a.attempt_id} (${a.source_invocation_count} source invocations)`,
        );
        if (a.failure) io.out(`  failure ${a.failure.code}: ${a.failure.message}`);
        for (const p of a.patches) io.out(`  patch ${p.patch_seq} ${p.subject_entity_id}: ${p.narration}`);
        for (const s of a.source_invocations)
          io.out(
            `    #${s.invocation_seq} ${s.invocation_kind} ${String(s.ambient_source_id ?? s.tool_name ?? s.workflow_subject_entity_id ?? '')} ${s.status}${s.failure_class ? ` (${s.failure_class})` : ''}`,
          );
      }
    });
    return EXIT_OK;
  },
};

export const worldCommands: readonly Command[] = [
  worldApplyCommand,
  worldCreateCommand,
  worldRunCommand,
  worldShowCommand,
  worldLogCommand,
];
