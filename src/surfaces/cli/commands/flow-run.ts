/**
 * `noema flow run <flowchart_id|file> [--input json]`: runs a flowchart in this process, streaming
 * one line per node update and persisted artifact, then the run's outcome. A file is imported first
 * (under a fresh id), or, when a flowchart was already imported from identical content, run again.
 */
import { loadConfig } from '../../../app/config.ts';
import { openNoemaStore } from '../../../app/open.ts';
import { NoemaError } from '../../../core/errors.ts';
import { type Command, DB_FLAG, EXIT_FAILED, EXIT_OK } from '../command.ts';
import { looksLikeFile, readJsonFile } from '../files.ts';

function parseInput(raw: unknown): unknown {
  if (typeof raw !== 'string') return {};
  try {
    return JSON.parse(raw);
  } catch (err) {
    throw new NoemaError('USAGE', `--input is not JSON: ${(err as Error).message}`);
  }
}

export const flowRunCommand: Command = {
  path: ['flow', 'run'],
  summary: 'Run a flowchart (an id, or a file to import first), streaming node updates',
  args: [{ name: 'flowchart', required: true, description: 'a flowchart id, or a flowchart file (.json)' }],
  flags: {
    input: { type: 'string', value: 'json', description: 'the run input as JSON', default: '{}' },
    json: { type: 'boolean', description: 'print every event as one JSON line' },
    db: DB_FLAG,
  },
  example: 'noema flow run examples/flowcharts/support-triage.json --input \'{"message":"jam"}\'',
  async run({ flags, positionals, io }) {
    const flow = await import('../../../runtimes/flow/index.ts');
    const target = positionals[0]!;
    const input = parseInput(flags.input);
    const doc = looksLikeFile(target)
      ? (readJsonFile(target, 'flowchart file') as Record<string, unknown>)
      : null;
    const store = await openNoemaStore(loadConfig({ db: flags.db as string | undefined }));
    const engine = flow.createFlowEngine(store);
    try {
      let flowchartId = target;
      if (doc) {
        const { flowchart_id: _drop, ...rest } = doc;
        const meta =
          typeof rest.flowchart === 'object' && rest.flowchart !== null
            ? {
                ...rest,
                flowchart: { ...(rest.flowchart as object), flowchart_id: undefined, id: undefined },
              }
            : rest;
        const fc = await flow.importFlowchart(store, meta, { reuseIdentical: true });
        flowchartId = fc.flowchart_id;
        io.out(
          fc.reused
            ? `flowchart ${flowchartId} was imported from ${target}'s content; running it`
            : `imported ${target} as flowchart ${flowchartId}`,
        );
      }
      const created = await flow.createFlowRun(store, engine, flowchartId, { input: input as never });
      io.out(`flowchart ${flowchartId} run ${created.flowchart_run_id}`);
      const unsub = await flow.subscribeFlowRun(engine, store, created, (e) => {
        if (flags.json) return io.out(JSON.stringify(e));
        if (e.event === flow.NODE_UPDATED) {
          const took = e.duration_ms === null ? '' : ` ${e.duration_ms}ms`;
          const err = e.error
            ? ` ${(e.error as { code: string }).code}: ${(e.error as { message: string }).message}`
            : '';
          io.out(
            `[${e.execution_index}] ${e.flowchart_node_id} (${e.flowchart_node_type}) ${e.status}${took}${err}`,
          );
        } else if (e.event === flow.ARTIFACT_PERSISTED) {
          io.out(`    artifact ${e.artifact_id} ${e.artifact_type}`);
        }
      });
      const outcome = await engine.continueRun(created.flowchart_run_id);
      await unsub();
      io.out(
        JSON.stringify({
          flowchart_run_id: created.flowchart_run_id,
          status: outcome.status,
          error: outcome.error,
        }),
      );
      return outcome.status === 'completed' ? EXIT_OK : EXIT_FAILED;
    } finally {
      await engine.close();
      await store.close();
    }
  },
};
