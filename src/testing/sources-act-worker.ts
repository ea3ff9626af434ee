/**
 * A real engine process for the sources executor's crash test: `node sources-act-worker.ts
 * <run_id>` claims the run (a `source_act` node performing one source call through `ctx.act`) with
 * the sources executor over the env it inherits (ADDER_URL), and ENGINE_LEASE_MS. Once the call's
 * invocation has finished durably it prints `finished` and hangs before the engine moves the
 * contract: the test kills it with SIGKILL in exactly that window.
 */
import { migrations } from '../app/migrations.ts';
import { createEngine, type Json, type NodeType, sourcesExecutor } from '../engine/index.ts';
import { openStore, parseStoreTarget } from '../store/index.ts';

/** Performs one source call through `ctx.act` and writes its status and result. */
export const sourceActNode: NodeType<{ source_hash: string; request: Json }> = {
  type: 'source_act',
  async execute(ctx) {
    const c = await ctx.act('tool_call', {
      source_hash: ctx.config.source_hash,
      request: ctx.config.request,
      tool_name: 'add',
    });
    return { kind: 'ok', writes: { messages: { status: c.status, result: c.result } }, route: 'done' };
  },
};

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  const store = await openStore(parseStoreTarget(process.env.NOEMA_DB), { migrations });
  const inner = sourcesExecutor(store);
  const engine = createEngine(store, {
    leaseMs: Number(process.env.ENGINE_LEASE_MS ?? 30_000),
    actions: {
      async execute(contract, ctx) {
        await inner.execute(contract, ctx);
        console.log('finished');
        // Alive and stuck (an open timer keeps the event loop busy) until the test kills it.
        setInterval(() => {}, 1_000);
        return new Promise(() => {});
      },
    },
  });
  engine.register(sourceActNode as NodeType<never>);
  await engine.claimNext();
}
