/** `createEngine`: wires the registry, runs, journal, contracts and events into the Engine contract. */

import { hostname } from 'node:os';
import { canonicalJson } from '../core/canonical-json.ts';
import { NoemaError } from '../core/errors.ts';
import { sha256Hex } from '../core/hash.ts';
import { isUuid, uuidv7 } from '../core/ids.ts';
import { LruMap } from '../core/lru.ts';
import { telemetry } from '../core/telemetry.ts';
import { FaultPatience } from '../store/index.ts';
import type { SqlValue, Store, Transaction } from '../store/store.ts';
import { contractsOfRun, getContractOrThrow } from './contracts/contract-store.ts';
import type {
  ClaimedRunDriver,
  ContractView,
  Engine,
  EngineOptions,
  GraphSpec,
  Json,
  RunOutcome,
  StartOptions,
} from './engine.ts';
import { EventBus } from './events/bus.ts';
import { RunEvents } from './events/run-events.ts';
import { type CompiledGraph, compileGraph } from './graph/compile.ts';
import { NodeRegistry } from './graph/registry.ts';
import { assertValidGraph } from './graph/validate.ts';
import { createdState, inputAppendStatement, type LoadedRun, loadState } from './journal/journal.ts';
import { journalFull } from './journal/key.ts';
import { claimedAttemptStatement } from './run/attempts.ts';
import { cancelRun } from './run/cancel.ts';
import type { EngineDeps } from './run/deps.ts';
import { executeRun } from './run/execute-run.ts';
import { announceQueued } from './run/queued-signal.ts';
import { answerContract } from './run/resume.ts';
import {
  abandonLease,
  abandonLeasesOf,
  backfillGraphTypes,
  claimableOutside,
  claimNextRun,
  claimRun,
  getGraphBody,
  getRunOrThrow,
  graphTypes,
  insertGraphTypes,
  issueRunInsert,
  type RunRow,
} from './run/runs.ts';
import { fitRunView } from './run/view-budget.ts';
import { outcomeOf, runView } from './run/views.ts';

/** How many compiled graphs an engine keeps. */
const GRAPH_CACHE = 256;
/** Runs created by an engine whose first claim it awaits (a run is claimed soon after its creation). */
const CREATED_HERE = 1024;
/** How often an engine that does not execute reads the row of a run it waits for, between its events. */
export const STOP_POLL_MS = 250;

export function createEngine(store: Store, options: EngineOptions = {}): Engine {
  const owner = options.owner ?? `${hostname()}:${process.pid}:${uuidv7().slice(-12)}`;
  const registry = new NodeRegistry();
  const deps: EngineDeps = {
    store,
    registry,
    bus: new EventBus(store, owner, options.fanOut ?? true),
    owner,
    leaseMs: options.leaseMs ?? 30_000,
    snapshotEvery: options.snapshotEvery ?? 100,
    actions: options.actions,
    now: options.now ?? Date.now,
  };
  // Compiled graphs by hash. Graphs come from callers, so the cache is bounded; a miss recompiles.
  const graphs = new LruMap<string, CompiledGraph>(GRAPH_CACHE);
  // Hashes of graphs that passed validation here. Node types are registered once and never replaced,
  // so a graph valid once stays valid: a runtime creating a run of the same graph every turn (a
  // world's turn graph) validates it once, not per run.
  const validGraphs = new LruMap<string, true>(GRAPH_CACHE);
  // Runs created here, not yet claimed, with their input row's body (null: none). A run's first claim
  // (claim epoch 1) follows nothing that could have written its journal, snapshots or contracts
  // (a resume or a cancel starts an epoch too), so the claim that finds one here reads none of them.
  const createdHere = new LruMap<string, string | null>(CREATED_HERE);
  // Runs created claimed here (`claim`), not yet executed: `continueRun` executes the row as created,
  // without a claim of its own (which, the lease being ours, would start a second claim epoch).
  const claimedAtCreation = new LruMap<string, RunRow>(CREATED_HERE);
  // A frozen graph (deeply: a runtime's compiled graph, kept and reused) cannot change, so it is
  // encoded and hashed once, not on every run created from it.
  const frozenHashes = new WeakMap<GraphSpec, { body: string; graph_hash: string }>();
  // Hashes of graphs known to be stored: a graph row is never updated nor deleted, so a run created
  // of one of them inserts no graph row (a runtime creates a run of the same graph every turn). Known
  // once a transaction of this engine that stored it committed, or a run of it was claimed (the run's
  // row holds its graph's key); a creation that fails forgets the hash, so a retry stores it again.
  const storedGraphs = new LruMap<string, true>(GRAPH_CACHE);

  async function graphOf(hash: string): Promise<CompiledGraph> {
    let g = graphs.get(hash);
    if (!g) {
      g = compileGraph(JSON.parse(await getGraphBody(store, hash)) as GraphSpec, hash);
      graphs.set(hash, g);
    }
    return g;
  }

  // Runs this engine is executing: a second continueRun of one of them (our lease lets it through the
  // claim) must not start a second loop in the same process.
  const active = new Map<string, Promise<RunOutcome>>();
  let backfilled: Promise<unknown> | undefined;

  function execute(row: RunRow, events?: RunEvents): Promise<RunOutcome> {
    const running = active.get(row.run_id);
    if (running) return running;
    const p = (async () => {
      let loaded: [CompiledGraph, LoadedRun, ContractView[]];
      try {
        storedGraphs.set(row.graph_hash, true);
        const graph = await graphOf(row.graph_hash);
        const created = row.event_epoch === 1 ? createdHere.get(row.run_id) : undefined;
        createdHere.delete(row.run_id);
        loaded =
          created !== undefined
            ? [graph, createdState(graph, created), []]
            : [graph, await loadState(store, graph, row.run_pk), await contractsOfRun(store, row.run_pk)];
      } catch (err) {
        // Claimed but not loaded (the store failed meanwhile): give the lease up for another process.
        if ((err as { retryable?: unknown } | null)?.retryable === true)
          await abandonLease(store, row.run_pk, owner, deps.now()).catch(() => {});
        throw err;
      }
      const channel = events ?? new RunEvents(deps.bus, row.run_id).claimed(row.event_epoch);
      return executeRun(deps, { run_pk: row.run_pk, run_id: row.run_id }, ...loaded, channel);
    })().finally(() => active.delete(row.run_id));
    active.set(row.run_id, p);
    return p;
  }

  const executes = options.executes ?? true;

  // A run left to another process: its row read at each of its events, and at least every STOP_POLL_MS.
  async function untilStopped(run_id: string): Promise<RunOutcome> {
    let wake = () => {};
    const unsubscribe = await deps.bus.subscribe(run_id, () => wake()).catch(() => null);
    // A read the store refuses for a moment is tried again at the next poll, as long as the engine
    // executing the run could still hold it: that run goes on meanwhile.
    const patience = new FaultPatience(deps.leaseMs);
    try {
      for (;;) {
        try {
          const row = await getRunOrThrow(store, run_id);
          if (row.status !== 'queued' && row.status !== 'running')
            return outcomeOf(deps, row, await graphOf(row.graph_hash));
          patience.succeeded();
        } catch (err) {
          patience.forgive(err);
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, STOP_POLL_MS);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    } finally {
      await unsubscribe?.().catch(() => {});
    }
  }

  // Drivers of claimed runs (driveClaimed), the last registered outermost.
  const drivers: ClaimedRunDriver[] = [];

  // Runs claimed here and handed to the drivers, until they stop: a continueRun of one meanwhile (our
  // lease would let it through) joins it instead of claiming it again before the drivers execute it.
  const claimedHere = new Map<string, Promise<RunOutcome>>();

  function driveClaimed(row: RunRow): Promise<RunOutcome> {
    const p = driveClaimedRow(row).finally(() => claimedHere.delete(row.run_id));
    claimedHere.set(row.run_id, p);
    return p;
  }

  async function driveClaimedRow(row: RunRow): Promise<RunOutcome> {
    let executed = false;
    let run: () => Promise<RunOutcome> = () => {
      executed = true;
      return execute(row);
    };
    for (const driver of drivers.slice()) {
      const inner = run;
      let once: Promise<RunOutcome> | undefined;
      run = () => driver(row.run_id, () => (once ??= inner()));
    }
    try {
      return await run();
    } catch (err) {
      // A driver failed before the run executed (its own read of the store): give the lease up.
      if (!executed) await abandonLease(store, row.run_pk, owner, deps.now()).catch(() => {});
      throw err;
    }
  }

  const engine: Engine = {
    owner,
    executes,
    register: (type) => registry.register(type),
    validate: (graph) => assertValidGraph(graph, registry),

    async createRun(graph: GraphSpec, opts: StartOptions = {}) {
      let hashed = frozenHashes.get(graph) ?? null;
      if (hashed === null) {
        try {
          const text = canonicalJson(graph);
          hashed = { body: text, graph_hash: sha256Hex(text) };
          if (Object.isFrozen(graph)) frozenHashes.set(graph, hashed);
        } catch {
          // Validation below says what is wrong with it (as it did before hashing).
        }
      }
      if (hashed === null || validGraphs.get(hashed.graph_hash) !== true) {
        await assertValidGraph(graph, registry);
        if (hashed === null) {
          const text = canonicalJson(graph);
          hashed = { body: text, graph_hash: sha256Hex(text) };
        }
        validGraphs.set(hashed.graph_hash, true);
      }
      const { body, graph_hash } = hashed;
      const run_id = opts.run_id ?? uuidv7();
      if (!isUuid(run_id))
        throw new NoemaError('INVALID_INPUT', 'run_id must be a uuid', { details: { run_id } });
      const input = opts.input ?? {};
      const undeclared = Object.keys(input).filter((k) => !graph.channels?.[k]);
      if (undeclared.length > 0) {
        throw new NoemaError(
          'INVALID_INPUT',
          `input writes undeclared channel(s): ${undeclared.join(', ')}`,
          {
            details: { channels: undeclared },
            hint: 'declare every channel under graph.channels',
          },
        );
      }
      const now = deps.now();
      const created = { run_id, created_at: now, nodes: graph.nodes, input };
      const inputBody = Object.keys(input).length > 0 ? JSON.stringify({ k: 'i', w: input }) : null;
      const claim = executes && opts.claim === true;
      // A run created claimed is held as long as a claim's lease; a reserved one as long as asked.
      const hold = !executes ? 0 : claim || opts.reserve === true ? deps.leaseMs : opts.reserve || 0;
      const reserved = hold > 0 ? { owner, until: now + hold } : null;
      // A run created claimed, as `claimRun` would leave it: executed from this row by `continueRun`.
      const claimedRow: RunRow | null = claim
        ? {
            run_pk: 0, // told by the insert's answer, before the transaction settles
            run_id,
            graph_hash,
            status: 'running',
            lease_owner: owner,
            lease_expires_at: reserved!.until,
            event_epoch: 1,
            error: null,
            created_at: now,
            updated_at: now,
          }
        : null;
      const create = async (tx: Transaction): Promise<void> => {
        const stored =
          storedGraphs.get(graph_hash) === true
            ? null
            : tx.run(
                'INSERT INTO engine_graphs (graph_hash, body, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
                [graph_hash, body, now],
              );
        // Issued, as are the statements after it (the COMMIT goes behind them where the store
        // pipelines): nothing here waits for the run's key, which its answer tells. A run with this id
        // already there fails the transaction, checked by the database itself.
        issueRunInsert(
          tx,
          { run_id, graph_hash, now },
          reserved,
          claim,
          (runPk) => {
            if (claimedRow) claimedRow.run_pk = runPk;
          },
          () => new NoemaError('CONFLICT', `run ${run_id} already exists`, { status: 409 }),
        );
        // A new graph's types (once per graph and process), after the run's insert.
        if (stored !== null && (await stored).changes === 1)
          await insertGraphTypes(tx, graph_hash, graphTypes(graph));
        // Claimed at its creation: its first attempt, as `claimRun` records it.
        if (claim) {
          const a = claimedAttemptStatement(run_id, owner, now);
          tx.write(a.sql, a.params);
        }
        if (inputBody !== null) {
          const j = inputAppendStatement(run_id, inputBody);
          tx.writeOne(j.sql, j.params, () => journalFull(`run ${run_id}, seq 1`));
        }
        // The observers' rows of the run (its trace context) commit with it.
        const rows = telemetry()?.runRows?.(created);
        if (rows) for (const r of rows) tx.write(r.sql, r.params as SqlValue[]);
        // Left to another process: the workers waiting for work hear of it with the commit.
        if (!executes) await announceQueued(tx);
      };
      try {
        if (opts.tx) await create(opts.tx);
        else {
          await store.transaction(create);
          storedGraphs.set(graph_hash, true);
        }
      } catch (err) {
        storedGraphs.delete(graph_hash);
        throw err;
      }
      // With the caller's transaction, it may yet roll back: then no claim finds the run (and a run
      // created claimed is not continued: its caller's transaction failed).
      if (executes) createdHere.set(run_id, inputBody);
      if (claimedRow) claimedAtCreation.set(run_id, claimedRow);
      telemetry()?.runCreated?.(created);
      return { run_id, graph_hash };
    },

    async start(graph, opts) {
      const { run_id } = await engine.createRun(graph, { ...opts, claim: true });
      return engine.continueRun(run_id);
    },

    async continueRun(run_id, options) {
      if (!executes) return untilStopped(run_id);
      const here = claimedHere.get(run_id);
      if (here) return here;
      const created = claimedAtCreation.get(run_id);
      if (created) {
        claimedAtCreation.delete(run_id);
        return execute(created);
      }
      const row = await claimRun(store, run_id, owner, deps.now(), deps.leaseMs, options);
      if (row) return execute(row);
      const current = await getRunOrThrow(store, run_id);
      return outcomeOf(deps, current, await graphOf(current.graph_hash));
    },

    async resume(run_id, contract_id, response: Json) {
      const { claimed, events, graph_hash, graph_body } = await answerContract(
        deps,
        run_id,
        contract_id,
        response,
      );
      if (!graphs.has(graph_hash))
        graphs.set(graph_hash, compileGraph(JSON.parse(graph_body) as GraphSpec, graph_hash));
      if (claimed && !executes) {
        // Answered here, executed by whichever process claims it next (at once: the lease is given up).
        await store.transaction(async (tx) => {
          await abandonLease(tx, claimed.run_pk, owner, deps.now());
          await announceQueued(tx);
        });
        return untilStopped(run_id);
      }
      if (claimed) return execute(claimed, events);
      const current = await getRunOrThrow(store, run_id);
      return outcomeOf(deps, current, await graphOf(current.graph_hash));
    },

    async claimNext(options = {}) {
      if (!executes) return null;
      // Graphs stored before claims were scoped get their node types once per engine.
      backfilled ??= backfillGraphTypes(store).catch((err: unknown) => {
        backfilled = undefined;
        throw err;
      });
      await backfilled;
      const now = deps.now();
      const queuedBefore = now - Math.max(0, options.queuedForMs ?? 0);
      const row = await claimNextRun(store, owner, now, deps.leaseMs, registry.types(), queuedBefore);
      if (!row) return null;
      return drivers.length === 0 ? execute(row) : driveClaimed(row);
    },

    async claimableElsewhere(options = {}) {
      const now = deps.now();
      return claimableOutside(store, now, registry.types(), now - Math.max(0, options.queuedForMs ?? 0));
    },

    driveClaimed(driver) {
      drivers.push(driver);
      return () => {
        const i = drivers.indexOf(driver);
        if (i >= 0) drivers.splice(i, 1);
      };
    },

    cancel: (run_id, options) => {
      // A run created claimed here and cancelled before it executed is not executed from memory.
      claimedAtCreation.delete(run_id);
      return cancelRun(deps, run_id, options);
    },

    async getRun(run_id, options) {
      const row = await getRunOrThrow(store, run_id);
      const view = await runView(deps, row, await graphOf(row.graph_hash));
      return options?.max_chars === undefined ? view : fitRunView(view, options.max_chars);
    },

    async getContract(contract_id) {
      const { run_pk: _pk, ...c } = await getContractOrThrow(store, contract_id);
      return c;
    },

    subscribe: (run_id, listener, options) => deps.bus.subscribe(run_id, listener, options),
    releaseLeases: () => abandonLeasesOf(store, owner, deps.now()),
    inFlight: () => active.size,
    close: () => deps.bus.close(),
  };
  return engine;
}
