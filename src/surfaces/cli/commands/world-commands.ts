/**
 * `noema world apply|create|run|show|log`: author a world from a scenario bundle, run turns
 * with a progress line per subject, and read what happened. Each command opens the configured
 * store (`--db` / NOEMA_DB); sources read NOEMA_LLM_* and the url_env variables.
 */
import { existsSync, statSync } from 'node:fs';
import { loadConfig } from '../../../app/config.ts';
import { openNoemaStore } from '../../../app/open.ts';
import type { Store } from '../../../store/store.ts';
import { type ArgSpec, type Command, DB_FLAG, EXIT_FAILED, EXIT_OK, type FlagSpec } from '../command.ts';
import { requirePath } from '../files.ts';
import { parseIntegerFlag } from '../flags.ts';

const db: Record<string, FlagSpec> = { db: DB_FLAG };
const slugArg: ArgSpec[] = [{ name: 'slug', required: true, description: 'the world slug' }];

async function withStore<T>(flags: Record<string, unknown>, fn: (store: Store) => Promise<T>): Promise<T> {
  const store = await openNoemaStore(loadConfig({ db: flags.db as string | undefined }));
  try {
    return await fn(store);
  } finally {
    await store.close();
  }
}

function intFlag(value: unknown, flag: string, min: number): number | undefined {
  return value === undefined
    ? undefined
    : parseIntegerFlag(String(value), flag, { min, max: Number.MAX_SAFE_INTEGER });
}

const isDir = (p: string) => existsSync(p) && statSync(p).isDirectory();
const isHash = (s: string) => /^[0-9a-f]{64}$/.test(s);

export const worldApplyCommand: Command = {
  path: ['world', 'apply'],
  summary: 'Put every document of a scenario bundle and assemble its scenario.json; prints the scenario hash',
  args: [
    { name: 'bundle-dir', required: true, description: 'a scenario bundle directory (with scenario.json)' },
  ],
  flags: { ...db },
  example: 'noema world apply examples/park',
  async run({ flags, positionals, io }) {
    const dir = requirePath(positionals[0]!);
    const { applyBundle } = await import('../../../runtimes/world/index.ts');
    const out = await withStore(flags, (store) => applyBundle(store, dir));
    io.out(out.scenario_hash);
    return EXIT_OK;
  },
};

export const worldCreateCommand: Command = {
  path: ['world', 'create'],
  summary: 'Create a world at turn 0 from a scenario (a hash, or a bundle directory to apply first)',
  args: slugArg,
  flags: {
    scenario: {
      type: 'string',
      value: 'hash|dir',
      description: 'scenario hash or bundle directory',
      required: true,
    },
    ...db,
  },
  example: 'noema world create park --scenario examples/park',
  async run({ flags, positionals, io }) {
    const slug = positionals[0]!;
    const scenario = flags.scenario as string;
    if (!isHash(scenario)) requirePath(scenario, '--scenario');
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
  args: slugArg,
  flags: { turns: { type: 'string', value: 'n', description: 'how many turns to run', default: '1' }, ...db },
  example: 'noema world run park --turns 3',
  async run({ flags, positionals, io }) {
    const slug = positionals[0]!;
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
  args: slugArg,
  flags: {
    turn: { type: 'string', value: 'n', description: 'a committed turn', default: 'the latest' },
    ...db,
  },
  example: 'noema world show park --turn 1',
  async run({ flags, positionals, io }) {
    const slug = positionals[0]!;
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
  args: slugArg,
  flags: { ...db },
  example: 'noema world log park',
  async run({ flags, positionals, io }) {
    const slug = positionals[0]!;
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
