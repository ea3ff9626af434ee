/**
 * The world runtime: the world's node types registered on an engine — the one it is given (the
 * HTTP server's, so the server's event streams see every turn) or its own — and `runTurn`: start
 * (or take over) the world's one running attempt and run its graph on the engine, whose last node
 * commits the turn; a failed run is recorded on the attempt. A second concurrent call gets ATTEMPT_IN_PROGRESS; an attempt
 * whose process died is continued from the engine journal once its lease has expired.
 */
import { uuidv7 } from '../../core/ids.ts';
import { createEngine, type Engine, type RunOutcome, sourcesExecutor } from '../../engine/index.ts';
import type { Store } from '../../store/store.ts';
import {
  type AttemptFailure,
  attemptInProgress,
  endAttempt,
  getAttemptRow,
  insertAttempt,
  runningAttempt,
  runningAttemptOfRun,
} from './attempts.ts';
import { commitTurn } from './commit.ts';
import { turnGraphOf } from './graph.ts';
import { subjectAmbientNode, turnAmbientNode } from './nodes/ambient.ts';
import { commitNode } from './nodes/commit.ts';
import { type OutputMark, writeOutputMarks } from './nodes/shared.ts';
import { toolNode } from './nodes/tool.ts';
import { toolLoopNode } from './nodes/tool-loop.ts';
import { getWorldRow, simulationTime, type WorldRow } from './state.ts';
import { type AttemptInput, type StagedPatch, TurnContexts } from './turn-context.ts';

export interface WorldRuntimeOptions {
  /**
   * Run turns on this engine (not closed by `close()`); its action executor performs the ambient
   * and tool contracts. Default: an engine of the runtime's own, with the sources executor.
   */
  engine?: Engine;
  /** Operator configuration for sources (LLM endpoint, toy URLs); default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
  /** Engine lease (own engine); an attempt whose process died is taken over after it expires. Default 30 s. */
  leaseMs?: number;
}

export interface TurnProgress {
  kind: string;
  [field: string]: unknown;
}

export interface RunTurnResult {
  attempt_id: string;
  status: 'committed' | 'failed';
  turn: number;
  patches: Array<{ patch_seq: number; subject_entity_id: string; narration: string; effects: unknown[] }>;
  failure?: AttemptFailure;
}

export interface WorldRuntime {
  readonly engine: Engine;
  runTurn(
    input: { world_slug: string },
    options?: { onProgress?: (p: TurnProgress) => void },
  ): Promise<RunTurnResult>;
  close(): Promise<void>;
}

/** The world runtime whose node types each engine runs (an engine registers them once). */
const onEngine = new WeakMap<Engine, WorldRuntime>();

/** The world runtime already running turns on `engine`, if one was created on it. */
export function worldRuntimeOn(engine: Engine): WorldRuntime | undefined {
  return onEngine.get(engine);
}

export function createWorldRuntime(store: Store, options: WorldRuntimeOptions = {}): WorldRuntime {
  const env = () => options.env ?? process.env;
  const leaseMs = options.leaseMs ?? 30_000;
  const contexts = new TurnContexts(store);
  const engine =
    options.engine ??
    createEngine(store, {
      actions: sourcesExecutor(store, options.env ? { env: options.env } : {}),
      ...(options.leaseMs ? { leaseMs: options.leaseMs } : {}),
    });
  const deps = { store, contexts, env };
  engine.register(turnAmbientNode(deps) as never);
  engine.register(subjectAmbientNode(deps) as never);
  engine.register(toolLoopNode(deps) as never);
  engine.register(toolNode() as never);
  engine.register(commitNode(store, contexts) as never);
  const active = new Set<string>();

  async function failureOf(attempt: AttemptInput, outcome: RunOutcome): Promise<AttemptFailure> {
    const err = outcome.error;
    const m = err?.node_id ? /^s(\d+)\./.exec(err.node_id) : null;
    const plan = m ? await contexts.plan(attempt.scenario_hash) : null;
    const failed = await store.get<{ source_invocation_id: string }>(
      `SELECT source_invocation_id FROM source_invocations WHERE attempt_id = ? AND status <> 'succeeded'
       ORDER BY invocation_seq DESC LIMIT 1`,
      [attempt.attempt_id],
    );
    return {
      code: err?.code ?? `RUN_${outcome.status.toUpperCase()}`,
      message: err?.message ?? `the attempt's run ended ${outcome.status}`,
      ...(err?.node_id ? { node_id: err.node_id } : {}),
      subject_entity_id: m && plan ? (plan.subjects[Number(m[1])]?.entity_id ?? null) : null,
      source_invocation_id: failed?.source_invocation_id ?? null,
    };
  }

  async function finish(attempt: AttemptInput, outcome: RunOutcome): Promise<RunTurnResult> {
    const base = { attempt_id: attempt.attempt_id, turn: attempt.attempted_turn };
    try {
      if (outcome.status === 'completed') {
        // The run's `commit` node committed the turn; when it ran here, it left the patches, and the
        // run is not read back (its whole journal and contracts) for them.
        let patches = contexts.committedPatches(attempt.attempt_id);
        if (!patches) {
          const run = await engine.getRun(outcome.run_id);
          patches = run.state.patches as unknown as StagedPatch[];
          const marks = (run.state.marks ?? []) as unknown as OutputMark[];
          // A run of a graph from before the `commit` node existed is committed here.
          if ((await getAttemptRow(store, attempt.attempt_id)).status === 'running') {
            const t = await contexts.get(attempt);
            await commitTurn(store, attempt, t.base, patches, marks);
          }
        }
        return {
          ...base,
          status: 'committed',
          patches: patches.map((p) => ({
            patch_seq: p.patch_seq,
            subject_entity_id: p.subject_entity_id,
            narration: p.patch.narration,
            effects: p.patch.effects,
          })),
        };
      }
      const failure = await failureOf(attempt, outcome);
      const run = await engine.getRun(outcome.run_id).catch(() => null);
      const marks = (run?.state.marks ?? []) as unknown as OutputMark[];
      await store.transaction(async (tx) => {
        await writeOutputMarks(tx, marks);
        await endAttempt(tx, attempt.attempt_id, 'failed', failure);
      });
      return { ...base, status: 'failed', patches: [], failure };
    } finally {
      contexts.forget(attempt.attempt_id);
    }
  }

  async function start(
    world: WorldRow,
    onRun: (run_id: string) => Promise<void>,
  ): Promise<{ attempt: AttemptInput; outcome: RunOutcome }> {
    const world_slug = world.world_slug;
    const existing = await runningAttempt(store, world_slug);
    if (existing) {
      const attempt: AttemptInput = {
        attempt_id: existing.attempt_id,
        world_slug,
        attempted_turn: existing.attempted_turn,
        simulation_time: null,
        scenario_hash: existing.scenario_hash,
      };
      const run = await engine.getRun(existing.run_id).catch(() => null);
      if (!run) {
        // Not expected (the run is created first); recorded rather than left blocking the world.
        await endAttempt(store, existing.attempt_id, 'interrupted', {
          code: 'ATTEMPT_INTERRUPTED',
          message: 'the attempt had no run',
        });
        return start(world, onRun);
      }
      attempt.simulation_time =
        (run.state.attempt as unknown as AttemptInput | null)?.simulation_time ?? null;
      // A run created moments ago is about to be claimed by the process that created it.
      if (run.status === 'queued' && Date.now() - existing.started_at < leaseMs)
        throw attemptInProgress(world_slug, existing.attempt_id);
      // Take over only a run whose owner's lease expired; a live owner keeps it.
      await onRun(existing.run_id);
      return { attempt, outcome: await continueAttempt(attempt, existing.run_id) };
    }
    const plan = await contexts.plan(world.scenario_hash);
    const turn = world.head_turn + 1;
    const attempt: AttemptInput = {
      attempt_id: uuidv7(),
      world_slug,
      attempted_turn: turn,
      simulation_time: simulationTime(
        plan.doc.simulation?.start_time,
        plan.doc.simulation?.minutes_per_turn,
        turn,
      ),
      scenario_hash: world.scenario_hash,
    };
    const run_id = uuidv7();
    // The run exists before the attempt claims the world, so a running attempt always has one.
    await engine.createRun(turnGraphOf(plan), {
      run_id,
      input: { attempt: attempt as never },
      reserve: true,
    });
    try {
      await insertAttempt(store, { ...attempt, run_id });
    } catch (err) {
      await engine.cancel(run_id).catch(() => undefined);
      throw err;
    }
    await onRun(run_id);
    // The attempt's nodes read the world row this call already has; a new attempt has made no call
    // (its context is made here, right before the run, and forgotten unless the run ends here).
    void contexts.get(attempt, world, true).catch(() => undefined);
    return { attempt, outcome: await continueAttempt(attempt, run_id) };
  }

  /**
   * Runs the attempt's run here until it ends; ATTEMPT_IN_PROGRESS if another process holds it (or
   * took it over: this process lost the lease). Unless it ended, this process forgets what it knew of
   * the attempt: another process may go on with it.
   */
  async function continueAttempt(attempt: AttemptInput, run_id: string): Promise<RunOutcome> {
    let outcome: RunOutcome;
    try {
      outcome = await engine.continueRun(run_id);
    } catch (err) {
      contexts.forget(attempt.attempt_id);
      throw err;
    }
    if (outcome.status !== 'running' && outcome.status !== 'queued') return outcome;
    contexts.forget(attempt.attempt_id);
    throw attemptInProgress(attempt.world_slug, attempt.attempt_id);
  }

  // An attempt's run a reclaimer claims (`claimNext`: its process died) ends the attempt as runTurn
  // would: committed by the run's `commit` node, or failed here with the run's failure.
  const undrive = engine.driveClaimed(async (run_id, execute) => {
    const row = await runningAttemptOfRun(store, run_id);
    if (!row || active.has(row.world_slug)) return execute();
    active.add(row.world_slug);
    try {
      const run = await engine.getRun(run_id).catch(() => null);
      const attempt: AttemptInput = {
        attempt_id: row.attempt_id,
        world_slug: row.world_slug,
        attempted_turn: row.attempted_turn,
        simulation_time: (run?.state.attempt as unknown as AttemptInput | null)?.simulation_time ?? null,
        scenario_hash: row.scenario_hash,
      };
      const outcome = await execute();
      if (outcome.status === 'running' || outcome.status === 'queued') contexts.forget(attempt.attempt_id);
      else await finish(attempt, outcome);
      return outcome;
    } finally {
      active.delete(row.world_slug);
    }
  });

  const runtime: WorldRuntime = {
    engine,
    async runTurn(input, opts = {}) {
      const slug = input.world_slug;
      if (active.has(slug)) throw attemptInProgress(slug);
      active.add(slug);
      let unsubscribe: (() => Promise<void>) | null = null;
      try {
        const world = await getWorldRow(store, slug);
        const onProgress = opts.onProgress;
        // Progress rides on the engine's node.updated events of the attempt's run.
        const onRun = async (run_id: string) => {
          if (!onProgress) return;
          unsubscribe = await engine.subscribe(run_id, (e) => {
            if (e.type === 'node.updated' && e.data && typeof e.data === 'object')
              onProgress(e.data as TurnProgress);
          });
        };
        const { attempt, outcome } = await start(world, onRun);
        return await finish(attempt, outcome);
      } finally {
        if (unsubscribe) await (unsubscribe as () => Promise<void>)();
        active.delete(slug);
      }
    },
    close: async () => {
      undrive();
      if (onEngine.get(engine) === runtime) onEngine.delete(engine);
      if (!options.engine) await engine.close();
    },
  };
  onEngine.set(engine, runtime);
  return runtime;
}
