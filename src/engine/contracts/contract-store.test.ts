import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeEachStore } from '../../testing/each-store.ts';
import type { ContractStatus } from '../engine.ts';
import { findContract, insertContract, updateContract, viewOf } from './contract-store.ts';
import { CONTRACT_STATUSES, canTransition, createContract, transition } from './transitions.ts';

describeEachStore('stored ExecutionContracts', (factory) => {
  test('every legal transition is stored with its time and actor; every illegal one leaves the row unchanged', async () => {
    const { store, dispose } = await factory.open();
    try {
      let n = 0;
      for (const from of CONTRACT_STATUSES) {
        for (const to of CONTRACT_STATUSES) {
          const id = `00000000-0000-7000-8000-${String(++n).padStart(12, '0')}`;
          const base = createContract(id, 'tool_call', { n }, 'test', 1);
          const start = viewOf({ ...base, status: from }, 'node_a');
          await insertContract(store, 1, start, 1);
          const before = await findContract(store, id);
          if (canTransition(from, to)) {
            const next = viewOf(transition(start, { to, actor: 'node:a', at: 7 }), 'node_a');
            assert.equal(await updateContract(store, next, from, 7), true, `${from}→${to}`);
            const after = await findContract(store, id);
            assert.equal(after?.status, to);
            assert.deepEqual(after?.transitions.at(-1), { from, to, at: 7, actor: 'node:a' });
          } else {
            assert.throws(() => transition(start, { to, actor: 'x', at: 7 }), { code: 'INVALID_TRANSITION' });
            // A caller that skips transition() still cannot store the move: the write path refuses it.
            const forged = viewOf(
              { ...start, status: to, transitions: [...start.transitions, { from, to, at: 7, actor: 'x' }] },
              'node_a',
            );
            await assert.rejects(updateContract(store, forged, from, 7), { code: 'INVALID_TRANSITION' });
            assert.deepEqual(await findContract(store, id), before, `${from}→${to} changed the row`);
          }
        }
      }
    } finally {
      await dispose();
    }
  });

  test('a stale writer cannot overwrite a contract another process moved (compare-and-set on status)', async () => {
    const { store, dispose } = await factory.open();
    try {
      const id = '00000000-0000-7000-8000-0000000000aa';
      const pending = viewOf(createContract(id, 'tool_call', {}, 'test', 1), 'n');
      await insertContract(store, 1, pending, 1);
      const running = viewOf(transition(pending, { to: 'RUNNING', actor: 'a', at: 2 }), 'n');
      assert.equal(await updateContract(store, running, 'PENDING', 2), true);
      const stale = viewOf(transition(pending, { to: 'CANCELLED', actor: 'b', at: 3 }), 'n');
      assert.equal(await updateContract(store, stale, 'PENDING' as ContractStatus, 3), false);
      assert.equal((await findContract(store, id))?.status, 'RUNNING');
    } finally {
      await dispose();
    }
  });
});
