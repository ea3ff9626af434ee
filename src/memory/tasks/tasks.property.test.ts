// Property: for any sequence of task mutations (valid or failing), every emitted event appears
// exactly once as a trace entry of its entity's canonical branch, failures emit nothing, and
// re-ingesting the whole stream writes nothing.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { describeEachStore } from '../../testing/each-store.ts';
import { reasoningRef } from '../reasoning/targets.ts';
import { init } from '../reasoning/workspace-ops.ts';
import { eventsAfter, reingestEvents } from './events.ts';
import { tasksCreate, tasksDecompose, tasksDone, tasksEdit, tasksNote } from './mutate.ts';

type Op =
  | { t: 'plan' }
  | { t: 'task'; plan: number }
  | { t: 'edit'; id: number; rev: number }
  | { t: 'steps'; id: number; n: number }
  | { t: 'note'; id: number }
  | { t: 'done'; id: number; step: number };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.constant({ t: 'plan' as const }),
  fc.record({ t: fc.constant('task' as const), plan: fc.nat(5) }),
  fc.record({ t: fc.constant('edit' as const), id: fc.nat(8), rev: fc.integer({ min: 1, max: 4 }) }),
  fc.record({ t: fc.constant('steps' as const), id: fc.nat(8), n: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ t: fc.constant('note' as const), id: fc.nat(8) }),
  fc.record({ t: fc.constant('done' as const), id: fc.nat(8), step: fc.nat(3) }),
);

describeEachStore('task ingestion properties', (factory) => {
  test('each event is ingested exactly once into its trace; failures emit nothing; re-ingestion is a no-op', async () => {
    const { store, dispose } = await factory.open();
    let run = 0;
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(opArb, { maxLength: 20 }), async (ops) => {
          const ws = `t${run++}`;
          await init(store, { workspace: ws });
          const ids: string[] = [];
          let ok = 0;
          for (const op of ops) {
            const id = ids.length ? ids[((op as { id?: number }).id ?? 0) % ids.length] : 'PLAN-001';
            try {
              if (op.t === 'plan')
                ids.push((await tasksCreate(store, { workspace: ws, kind: 'plan', title: 'p' })).task.id);
              else if (op.t === 'task') {
                const plan = ids.filter((i) => i.startsWith('PLAN-'))[op.plan] ?? 'PLAN-001';
                ids.push(
                  (await tasksCreate(store, { workspace: ws, kind: 'task', title: 't', plan })).task.id,
                );
              } else if (op.t === 'edit')
                await tasksEdit(store, {
                  workspace: ws,
                  id: id as string,
                  expected_revision: op.rev,
                  title: 'e',
                });
              else if (op.t === 'steps')
                await tasksDecompose(store, {
                  workspace: ws,
                  id: id as string,
                  steps: Array.from({ length: op.n }, () => ({ title: 's' })),
                });
              else if (op.t === 'note')
                await tasksNote(store, { workspace: ws, id: id as string, content: 'n' });
              else
                await tasksDone(store, {
                  workspace: ws,
                  id: id as string,
                  ...(op.step ? { step: op.step } : {}),
                });
              ok += 1;
            } catch (e) {
              assert.match(
                (e as { code: string }).code,
                /^(UNKNOWN_TARGET|REVISION_MISMATCH|UNKNOWN_STEP|INVALID_INPUT)$/,
              );
            }
          }
          const events = await eventsAfter(store, ws, 0, 1000);
          assert.equal(events.length, ok, 'one event per successful mutation');
          const traces = await store.all<{ branch: string; doc: string; source_event_id: string }>(
            "SELECT branch, doc, source_event_id FROM doc_entries WHERE workspace = ? AND kind = 'trace'",
            [ws],
          );
          assert.equal(traces.length, events.length);
          const byEvent = new Map(traces.map((t) => [t.source_event_id, t]));
          for (const e of events) {
            const ref = reasoningRef(e.target);
            assert.deepEqual(
              { ...byEvent.get(e.event_id) },
              { branch: ref.branch, doc: ref.trace_doc, source_event_id: e.event_id },
            );
          }
          assert.equal(await store.transaction((tx) => reingestEvents(tx, ws, 0, 1000)), 0);
        }),
        { numRuns: factory.kind === 'sqlite' ? 40 : 12 },
      );
    } finally {
      await dispose();
    }
  });
});
