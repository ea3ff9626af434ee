/**
 * Crashes around a model-elected tool call (seed 004 "Failure", docs/worlds.md "Crashes"): a real
 * child process killed with SIGKILL while a tool call is in flight, or after it finished, leaves
 * the attempt to be continued — not discarded — and only the interrupted call is redone. A call
 * whose outcome is unknown follows the tool's declared idempotency: an idempotent tool is called
 * again; any other is not, and the model is told its outcome is unknown. Finished model, ambient
 * and tool calls are counted at the scripted model and the toys: none is made twice.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { isNoemaError } from '../../src/core/errors.ts';
import { loadScript } from '../../src/dev/scripted-model/index.ts';
import {
  getAttempt,
  getComponent,
  getWorld,
  putCognitionProfile,
  putCognitionWorkflow,
} from '../../src/runtimes/world/index.ts';
import { recoverInterruptedInvocations } from '../../src/sources/index.ts';
import type { Store } from '../../src/store/store.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { PARK_SCRIPT, type ParkKit, startParkKit } from '../../src/testing/world-kit.ts';
import { count } from './helpers.ts';

const WORKER = fileURLToPath(new URL('../../src/testing/world-worker.ts', import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const TOOL_RESULT = 'Tool result for buy_candy';

/** A toy hook that holds every `/buy_candy` request unanswered until `release()`. */
function holdBuyCandy() {
  let release!: () => void;
  const held = new Promise<void>((r) => {
    release = r;
  });
  return {
    onToyRequest: async (r: { path: string }) => {
      if (r.path === '/buy_candy') await held;
    },
    release: () => release(),
  };
}

/** Runs world `slug`'s turn in a child process and kills it (SIGKILL) once `reached()` holds. */
async function killWhen(
  kit: ParkKit,
  url: string,
  slug: string,
  reached: () => Promise<boolean> | boolean,
): Promise<void> {
  const child = spawn(process.execPath, [WORKER, slug], {
    env: { ...process.env, ...kit.env, NOEMA_DB: url, WORLD_LEASE_MS: '1000' },
    stdio: 'ignore',
  });
  const exited = new Promise((r) => child.on('exit', r));
  const deadline = Date.now() + 20_000;
  while (!(await reached())) {
    assert.ok(Date.now() < deadline, 'the child never reached the point it is killed at');
    await sleep(50);
  }
  child.kill('SIGKILL');
  await exited;
}

/** run_turn once the dead child's lease has expired (ATTEMPT_IN_PROGRESS until then), bounded. */
async function continueTurn(kit: ParkKit, world_slug: string) {
  const until = Date.now() + 20_000;
  for (;;) {
    try {
      return await kit.runtime.runTurn({ world_slug });
    } catch (err) {
      if (!(isNoemaError(err) && err.code === 'ATTEMPT_IN_PROGRESS') || Date.now() > until) throw err;
      await sleep(200);
    }
  }
}

/** Calls counted where they arrive: the toys by path, the model by subject and tool-loop round. */
function calls(kit: ParkKit) {
  const toy = (path: string) => kit.toys.requests.filter((r) => r.path === path).length;
  const model = (subject: string, afterTool: boolean) =>
    kit.model.requests.filter(
      (q) =>
        q.headers['x-noema-subject'] === subject &&
        JSON.stringify(q.body.messages).includes(TOOL_RESULT) === afterTool,
    ).length;
  return {
    weather: toy('/weather'),
    pa: toy('/announcement'),
    buy_candy: toy('/buy_candy'),
    bob_first_generation: model('bob', false),
    bob_after_tool: model('bob', true),
    ant: model('ant', false),
  };
}

/** Bob's last prompt after the crash: what the model was told of the interrupted call. */
function lastBobPrompt(kit: ParkKit): string {
  const bobs = kit.model.requests.filter((q) => q.headers['x-noema-subject'] === 'bob');
  const messages = bobs.at(-1)!.body.messages as Array<{ content: string }>;
  return messages.at(-1)!.content;
}

/** A park scenario whose Bob declares `buy_candy` idempotent (it may be called again after a crash). */
async function idempotentBuyCandyWorld(store: Store, kit: ParkKit, slug: string): Promise<void> {
  const wf = (await getComponent(store, kit.doc('workflows/bob.json'), 'cognition_workflow')).content as {
    nodes: Array<{ available_tools: Array<Record<string, unknown>> }>;
  };
  for (const t of wf.nodes[0]!.available_tools) if (t.name === 'buy_candy') t.idempotent = true;
  const workflow = await putCognitionWorkflow(store, wf);
  const profile = await putCognitionProfile(store, {
    version: 1,
    label: 'idempotent_visitor',
    workflow_ref: workflow,
  });
  const scenario = await kit.variant({
    subjects: [
      { entity_id: 'bob', profile: profile.hash },
      { entity_id: 'ant', profile: kit.doc('profiles/ant.json') },
    ],
  });
  await kit.world(slug, scenario);
}

async function toolInvocations(store: Store, attempt_id: string) {
  const a = await getAttempt(store, { attempt_id });
  return a.source_invocations.filter((s) => s.invocation_kind === 'model_elected_tool');
}

describeEachStore('world turns under crashes around a tool call', (factory) => {
  test('kill -9 mid tool call (not idempotent): the attempt continues, the call is not repeated, the model is told its outcome is unknown', async () => {
    await factory.withStore(async ({ store, url }) => {
      const hold = holdBuyCandy();
      const kit = await startParkKit(store, { leaseMs: 1000, onToyRequest: hold.onToyRequest });
      try {
        await kit.world('park');
        await killWhen(kit, url, 'park', () => calls(kit).buy_candy === 1);
        hold.release();
        assert.equal((await getWorld(store, { world_slug: 'park' })).head_turn, 0, 'nothing committed');
        const atKill = calls(kit);
        assert.deepEqual(atKill, {
          weather: 1,
          pa: 1,
          buy_candy: 1,
          bob_first_generation: 1,
          bob_after_tool: 0,
          ant: 0,
        });

        await recoverInterruptedInvocations(store);
        const result = await continueTurn(kit, 'park');
        assert.equal(result.status, 'committed', JSON.stringify(result.failure));
        assert.equal(result.turn, 1);
        assert.deepEqual(
          result.patches.map((p) => p.subject_entity_id),
          ['bob', 'ant'],
        );
        assert.deepEqual(calls(kit), {
          ...atKill,
          bob_after_tool: 1,
          ant: 1,
        });
        assert.match(lastBobPrompt(kit), /^Tool result for buy_candy:/);
        assert.match(lastBobPrompt(kit), /"outcome":"unknown"/);
        assert.equal(
          await count(store, "SELECT COUNT(*) AS n FROM world_attempts WHERE world_slug = 'park'"),
          1,
          'one attempt, continued',
        );
        const tools = await toolInvocations(store, result.attempt_id);
        assert.deepEqual(
          tools.map((s) => s.status),
          ['interrupted'],
        );
      } finally {
        hold.release();
        await kit.close();
      }
    });
  });

  test('kill -9 mid tool call (declared idempotent): the attempt continues and only that call is made again', async () => {
    await factory.withStore(async ({ store, url }) => {
      const hold = holdBuyCandy();
      // The held call, answered to a dead process once released, takes a bar of its own.
      const kit = await startParkKit(store, {
        leaseMs: 1000,
        vendingStock: 2,
        onToyRequest: hold.onToyRequest,
      });
      try {
        await idempotentBuyCandyWorld(store, kit, 'idem');
        await killWhen(kit, url, 'idem', () => calls(kit).buy_candy === 1);
        const atKill = calls(kit);
        await recoverInterruptedInvocations(store);
        // The repeated call is answered.
        hold.release();
        const result = await continueTurn(kit, 'idem');
        assert.equal(result.status, 'committed', JSON.stringify(result.failure));
        assert.deepEqual(calls(kit), {
          ...atKill,
          buy_candy: 2,
          bob_after_tool: 1,
          ant: 1,
        });
        assert.match(lastBobPrompt(kit), /"status":"dispensed"/);
        const tools = await toolInvocations(store, result.attempt_id);
        assert.deepEqual(
          tools.map((s) => s.status),
          ['interrupted', 'succeeded'],
        );
        assert.equal(
          await count(store, "SELECT COUNT(*) AS n FROM world_attempts WHERE world_slug = 'idem'"),
          1,
          'one attempt, continued',
        );
      } finally {
        hold.release();
        await kit.close();
      }
    });
  });

  test('kill -9 after a finished tool call: the tool, the generation that asked for it and the ambient calls are not made again', async () => {
    await factory.withStore(async ({ store, url }) => {
      const park = loadScript(PARK_SCRIPT);
      // Bob's generation after the tool result hangs after one chunk: the child is killed then.
      const hang = {
        match: { subject: 'bob', last_message_contains: TOOL_RESULT },
        times: 1,
        reply: { hang: true, hang_after_chunks: 1, json: {} },
      };
      const kit = await startParkKit(store, {
        script: { ...park, rules: [hang, ...park.rules] },
        leaseMs: 1000,
      });
      try {
        await kit.world('park');
        await killWhen(kit, url, 'park', () => calls(kit).bob_after_tool === 1);
        const atKill = calls(kit);
        assert.equal(atKill.buy_candy, 1);
        await recoverInterruptedInvocations(store);
        const result = await continueTurn(kit, 'park');
        assert.equal(result.status, 'committed', JSON.stringify(result.failure));
        // Only the generation in flight was made again.
        assert.deepEqual(calls(kit), { ...atKill, bob_after_tool: 2, ant: 1 });
        const tools = await toolInvocations(store, result.attempt_id);
        assert.deepEqual(
          tools.map((s) => s.status),
          ['succeeded'],
        );
        assert.equal(
          (await getWorld(store, { world_slug: 'park' })).entities.bob!.state,
          'holding a candy bar',
        );
      } finally {
        await kit.close();
      }
    });
  });
});
