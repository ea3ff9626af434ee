import assert from 'node:assert/strict';
import { test } from 'node:test';
import { addMemory } from '../../../memory/long-term/index.ts';
import { describeEachStore } from '../../../testing/each-store.ts';
import { EXAMPLE, EXAMPLE_SCRIPT, flowKit, readJson } from '../../../testing/flow-kit.ts';
import { dispatchFlowApi, type FlowServices } from './api.ts';

describeEachStore('flowchart REST API handlers', (factory) => {
  test('every route: success shapes with ids, paging and filters, and the error envelope', async () =>
    factory.withStore(async ({ store }) => {
      const kit = await flowKit(store, readJson(EXAMPLE_SCRIPT));
      const svc: FlowServices = { store, engine: kit.engine };
      let n = 0;
      const call = async (method: string, path: string, body?: unknown, correlation_id?: string) => {
        const r = await dispatchFlowApi(svc, {
          method,
          path,
          body,
          request_id: `req-${++n}`,
          ...(correlation_id ? { correlation_id } : {}),
        });
        assert.ok(r, `${method} ${path} matched`);
        assert.equal(r.json.request_id, `req-${n}`);
        return r;
      };
      try {
        const created = await call('POST', '/flowcharts', readJson(EXAMPLE));
        assert.equal(created.status, 201);
        assert.equal(created.json.ok, true);
        const id = created.json.flowchart_id as string;
        await call('POST', '/flowcharts', { name: 'second' });

        const list = await call('GET', '/flowcharts?limit=1&offset=1');
        assert.deepEqual([list.json.count, list.json.limit, list.json.offset], [2, 1, 1]);
        assert.equal((list.json.items as unknown[]).length, 1);
        assert.equal((await call('GET', `/flowcharts/${id}`)).json.flowchart_id, id);
        const graph = await call('GET', `/flowcharts/${id}/graph`);
        assert.deepEqual(graph.json.validation, { valid: true, errors: [] });

        const bad = await call('POST', `/flowcharts/${id}/graph`, {
          nodes: [{ node_type: 'memory', config: {} }],
          edges: [],
        });
        assert.equal(bad.status, 400);
        assert.equal(bad.json.code, 'INVALID_INPUT');
        assert.ok(Array.isArray((bad.json.details as { errors: unknown[] }).errors));
        for (const k of ['code', 'message', 'details', 'request_id']) assert.ok(k in bad.json);

        const started = await call('POST', `/flowcharts/${id}/runs`, { input: { message: 'jam' } }, 'corr-9');
        assert.equal(started.status, 202);
        assert.equal(started.json.correlation_id, 'corr-9');
        const runId = started.json.flowchart_run_id as string;
        let run = await call('GET', `/flowcharts/${id}/runs/${runId}`);
        for (let i = 0; i < 300 && (run.json.item as { status: string }).status !== 'completed'; i++) {
          await new Promise((r) => setTimeout(r, 20));
          run = await call('GET', `/flowcharts/${id}/runs/${runId}`);
        }
        const view = run.json.item as { status: string; node_runs: Array<Record<string, unknown>> };
        assert.equal(view.status, 'completed');
        for (const k of [
          'node_run_id',
          'execution_index',
          'status',
          'output_state',
          'routing_state',
          'started_at',
          'finished_at',
          'duration_ms',
          'error',
        ])
          assert.ok(k in view.node_runs[0]!, k);
        assert.equal(((await call('GET', `/flowcharts/${id}/runs`)).json.items as unknown[]).length, 1);
        const cancel = await call('POST', `/flowcharts/${id}/runs/${runId}/cancel`);
        assert.equal(cancel.status, 409);
        assert.equal(cancel.json.code, 'INVALID_TRANSITION');

        // artifacts carry the request and correlation ids of the request that started the run
        const dec = await call(
          'GET',
          `/flowcharts/${id}/nodes/route/decision-artifacts?limit=5&flowchart_run_id=${runId}`,
        );
        assert.deepEqual(
          [dec.json.flowchart_id, dec.json.flowchart_node_id, dec.json.count],
          [id, 'route', 1],
        );
        const decItem = (
          dec.json.items as Array<{ artifact_id: number; request_id: string; correlation_id: string }>
        )[0]!;
        assert.equal(decItem.request_id, started.json.request_id);
        assert.equal(decItem.correlation_id, 'corr-9');
        assert.equal(
          (await call('GET', `/flowcharts/${id}/nodes/route/decision-artifacts/${decItem.artifact_id}`)).json
            .item !== undefined,
          true,
        );
        assert.equal(
          (await call('GET', `/flowcharts/${id}/nodes/plan/decision-artifacts/${decItem.artifact_id}`))
            .status,
          404,
        );

        const nodeRuns = view.node_runs;
        const planId = (
          nodeRuns.find((r) => r.flowchart_node_id === 'plan')!.output_state as { plan_id: number }
        ).plan_id;
        const milestoneId = (
          nodeRuns.find((r) => r.flowchart_node_id === 'triaged')!.output_state as {
            milestone: { milestone_id: number };
          }
        ).milestone.milestone_id;
        const memoryId = (
          nodeRuns.find((r) => r.flowchart_node_id === 'remember')!.output_state as {
            stored_memory: { memory_id: number };
          }
        ).stored_memory.memory_id;
        for (const [seg, key, rid] of [
          ['plans', 'plan_id', planId],
          ['memories', 'memory_id', memoryId],
          ['milestones', 'milestone_id', milestoneId],
        ] as const) {
          const detail = await call('GET', `/${seg}/${rid}`);
          assert.equal(detail.json[key], rid);
          assert.ok(detail.json.item);
          const arts = await call(
            'GET',
            `/${seg}/${rid}/artifacts?limit=10&offset=0&flowchart_id=${id}&flowchart_run_id=${runId}`,
          );
          assert.equal(arts.json[key], rid);
          // the memory is referenced by the node that stored it and the one that retrieved it
          assert.equal(arts.json.count, seg === 'memories' ? 2 : 1);
          const a = (arts.json.items as Array<{ artifact_id: number }>)[0]!;
          assert.equal(
            (await call('GET', `/${seg}/${rid}/artifacts/${a.artifact_id}`)).json.item !== undefined,
            true,
          );
          assert.equal(
            (await call('GET', `/${seg}/${rid}/artifacts/${decItem.artifact_id}`)).status,
            404,
            'not in this scope',
          );
          assert.equal((await call('GET', `/${seg}/${rid}/artifacts?flowchart_node_id=ghost`)).json.count, 0);
          const missing = await call('GET', `/${seg}/999999`);
          assert.equal(missing.status, 404);
          assert.match(missing.json.code as string, /^UNKNOWN_/);
        }

        const userMemory = await addMemory(store, { scope_kind: 'user', scope_id: 'alice', text: 'private' });
        assert.equal(
          (await call('GET', `/memories/${userMemory.memory.memory_id}`)).status,
          404,
          'only flowchart memories',
        );

        const offsetPage = await call('GET', `/plans/${planId}/artifacts?offset=1`);
        assert.deepEqual([offsetPage.json.count, (offsetPage.json.items as unknown[]).length], [1, 0]);
        assert.equal((await call('GET', '/flowcharts?limit=0')).status, 400);
        assert.equal((await call('GET', '/flowcharts?bogus=1')).status, 400);
        assert.equal((await call('GET', '/plans/abc')).status, 404);
        assert.equal((await call('GET', `/flowcharts/${id}/runs/not-a-uuid`)).status, 404);
        assert.equal((await call('PUT', '/flowcharts')).status, 405);
        assert.equal((await call('DELETE', `/flowcharts/${id}`)).json.deleted, true);
        assert.equal((await call('GET', `/flowcharts/${id}`)).status, 404);
      } finally {
        await kit.close();
      }
    }));
});
