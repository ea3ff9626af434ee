/** Run feeds send each event once per sink, whatever hands it to them twice. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Engine, EngineEvent, EngineEventListener } from '../../../engine/index.ts';
import { RunFeeds } from './feed.ts';

/** An engine that only lets a test push events to its subscribers. */
function pushEngine(): { engine: Engine; push(e: EngineEvent): void } {
  const listeners = new Set<EngineEventListener>();
  const engine = {
    subscribe: async (_run: string, listener: EngineEventListener) => {
      listeners.add(listener);
      return async () => void listeners.delete(listener);
    },
  } as unknown as Engine;
  return {
    engine,
    push: (e) => {
      for (const l of listeners) l(e);
    },
  };
}

const event = (seq: number): EngineEvent => ({
  type: 'node.updated',
  run_id: 'r1',
  node_id: 'n',
  step: 1,
  data: null,
  at: seq,
  seq,
});

test('an event delivered again (same id) or out of order reaches each sink once', async () => {
  const { engine, push } = pushEngine();
  const feeds = new RunFeeds(engine);
  const seen: Array<number | null> = [];
  const replayed: Array<number | null> = [];
  await feeds.join('r1', { event: (_e, id) => seen.push(id), resync: () => {} });
  for (const seq of [1, 2, 2, 3, 1, 3, 4]) push(event(seq));
  assert.deepEqual(seen, [1, 2, 3, 4]);
  // The buffer kept them once too: a resume after 1 replays 2, 3, 4.
  feeds.replay('r1', { event: (_e, id) => replayed.push(id), resync: () => assert.fail('resync') }, 1);
  assert.deepEqual(replayed, [2, 3, 4]);
  await feeds.close();
});
