// A stock MCP SDK client drives `noema mcp` over stdio: tools/list is self-documenting, every log
// and task tool works end to end, errors follow the envelope, and two processes on one store lose no writes.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { NOEMA_BIN } from '../../src/testing/cli.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { waitUntil } from '../../src/testing/wait.ts';
import { stdioClient } from './helpers.ts';

const W = 'proj';

describeEachStore('noema mcp over stdio', (factory) => {
  test('tools/list declares every tool with a description and a JSON Schema requiring workspace', async () => {
    const { url, dispose } = await factory.open();
    const c = await stdioClient(url);
    try {
      const { tools } = await c.client.listTools();
      const names = tools.map((t) => t.name);
      for (const n of [
        'branchmind_init',
        'branchmind_status',
        'branchmind_notes_commit',
        'branchmind_show',
        'branchmind_export',
        'branchmind_diff',
        'branchmind_merge',
        'branchmind_branch_create',
        'branchmind_branch_list',
        'branchmind_checkout',
        'tasks_create',
        'tasks_edit',
        'tasks_decompose',
        'tasks_note',
        'tasks_done',
        'tasks_context',
        'tasks_radar',
        'tasks_delta',
      ]) {
        assert.ok(names.includes(n), `${n} is listed`);
      }
      for (const t of tools) {
        assert.ok((t.description ?? '').length > 20, `${t.name} has a description`);
        assert.equal(t.inputSchema.type, 'object');
        const props = t.inputSchema.properties as Record<string, { description?: string }>;
        assert.ok((t.inputSchema.required as string[]).includes('workspace'), `${t.name} requires workspace`);
        for (const [k, p] of Object.entries(props)) assert.ok(p.description, `${t.name}.${k} is described`);
      }
    } finally {
      await c.close();
      await dispose();
    }
  });

  test('a client drives the log and task tools end to end', async () => {
    const { url, dispose } = await factory.open();
    const c = await stdioClient(url);
    try {
      const missing = await c.call('branchmind_status', { workspace: W });
      assert.ok(!missing.ok);
      assert.equal(missing.error.code, 'UNKNOWN_WORKSPACE');
      assert.match(missing.error.recovery ?? '', /branchmind_init/);
      const noWs = await c.call('branchmind_status', {});
      assert.ok(!noWs.ok);
      assert.equal(noWs.error.code, 'INVALID_INPUT');

      await c.ok('branchmind_init', { workspace: W });
      await c.ok('branchmind_notes_commit', { workspace: W, doc: 'notes', content: 'on main' });
      const created = await c.ok<{ branch: { base_seq: number } }>('branchmind_branch_create', {
        workspace: W,
        name: 'idea',
      });
      assert.equal(created.branch.base_seq, 1);
      await c.ok('branchmind_notes_commit', {
        workspace: W,
        branch: 'idea',
        doc: 'notes',
        content: 'what if',
        title: 'wi',
      });
      const shown = await c.ok<{ entries: Array<{ content: string }> }>('branchmind_show', {
        workspace: W,
        branch: 'idea',
        doc: 'notes',
      });
      assert.deepEqual(
        shown.entries.map((e) => e.content),
        ['what if', 'on main'],
      );
      const d = await c.ok<{ entries: unknown[] }>('branchmind_diff', {
        workspace: W,
        from: 'main',
        to: 'idea',
      });
      assert.equal(d.entries.length, 1);
      const dry = await c.ok<{ merged: number }>('branchmind_merge', {
        workspace: W,
        from: 'idea',
        into: 'main',
        dry_run: true,
      });
      assert.equal(dry.merged, 1);
      await c.ok('branchmind_merge', { workspace: W, from: 'idea', into: 'main' });
      for (const [from, to] of [
        ['main', 'idea'],
        ['idea', 'main'],
      ]) {
        const after = await c.ok<{ entries: unknown[] }>('branchmind_diff', { workspace: W, from, to });
        assert.deepEqual(after.entries, []);
      }
      const list = await c.ok<{ branches: unknown[] }>('branchmind_branch_list', { workspace: W });
      assert.equal(list.branches.length, 2);
      const co = await c.ok<{ current: string }>('branchmind_checkout', { workspace: W, ref: 'idea' });
      assert.equal(co.current, 'idea');

      const plan = await c.ok<{ task: { id: string } }>('tasks_create', {
        workspace: W,
        kind: 'plan',
        title: 'Ship',
      });
      const task = await c.ok<{ task: { id: string; revision: number } }>('tasks_create', {
        workspace: W,
        kind: 'task',
        title: 'Write docs',
        plan: plan.task.id,
      });
      assert.equal(task.task.id, 'TASK-001');
      const stale = await c.call('tasks_edit', {
        workspace: W,
        id: 'TASK-001',
        expected_revision: 7,
        status: 'done',
      });
      assert.ok(!stale.ok);
      assert.equal(stale.error.code, 'REVISION_MISMATCH');
      await c.ok('tasks_edit', { workspace: W, id: 'TASK-001', expected_revision: 1, status: 'in_progress' });
      await c.ok('tasks_decompose', {
        workspace: W,
        id: 'TASK-001',
        steps: [{ title: 'outline' }, { title: 'write' }],
      });
      await c.ok('tasks_note', { workspace: W, id: 'TASK-001', content: 'outline done' });
      await c.ok('tasks_done', { workspace: W, id: 'TASK-001', step: 1 });
      const radar = await c.ok<{ reasoning_ref: Record<string, string> }>('tasks_radar', {
        workspace: W,
        id: 'TASK-001',
      });
      assert.deepEqual(radar.reasoning_ref, {
        branch: 'task/TASK-001',
        notes_doc: 'notes',
        trace_doc: 'TASK-001-trace',
        graph_doc: 'TASK-001-graph',
      });
      const ctx = await c.ok<{ items: unknown[] }>('tasks_context', { workspace: W });
      assert.equal(ctx.items.length, 2);
      const delta = await c.ok<{ events: Array<{ event_id: string; target: string }> }>('tasks_delta', {
        workspace: W,
      });
      assert.equal(delta.events.length, 6);
      await c.ok('branchmind_notes_commit', { workspace: W, target: 'TASK-001', content: 'chose markdown' });
      const trace = await c.ok<{ entries: Array<{ source_event_id: string }> }>('branchmind_show', {
        workspace: W,
        target: 'TASK-001',
        doc_kind: 'trace',
      });
      assert.deepEqual(
        trace.entries.map((e) => e.source_event_id).reverse(),
        delta.events.filter((e) => e.target === 'TASK-001').map((e) => e.event_id),
      );
      const ex = await c.ok<{ notes: { entries: unknown[] }; trace: { entries: unknown[] } }>(
        'branchmind_export',
        {
          workspace: W,
          target: 'TASK-001',
        },
      );
      assert.equal(ex.notes.entries.length, 1);
      assert.equal(ex.trace.entries.length, 5);
      const unknown = await c.call('branchmind_show', { workspace: W, target: 'TASK-042' });
      assert.ok(!unknown.ok);
      assert.equal(unknown.error.code, 'UNKNOWN_TARGET');
      const tiny = await c.call('branchmind_show', { workspace: W, target: 'TASK-001', max_chars: 5 });
      assert.ok(!tiny.ok);
      assert.equal(tiny.error.code, 'BUDGET_TOO_SMALL');
      const st = await c.ok<{ last_event_id: string }>('branchmind_status', { workspace: W });
      assert.equal(st.last_event_id, delta.events.at(-1)?.event_id);
    } finally {
      await c.close();
      await dispose();
    }
  });

  test('two noema mcp processes on one store, 20 concurrent calls each, lose no writes', async () => {
    const { url, store, dispose } = await factory.open();
    const a = await stdioClient(url);
    const b = await stdioClient(url);
    try {
      await a.ok('branchmind_init', { workspace: W });
      await a.ok('tasks_create', { workspace: W, kind: 'plan', title: 'P' });
      const burst = (c: typeof a, tag: string) =>
        Array.from({ length: 20 }, (_, i) =>
          i % 2 === 0
            ? c.ok('branchmind_notes_commit', {
                workspace: W,
                branch: 'main',
                doc: 'notes',
                content: `${tag}${i}`,
              })
            : c.ok('tasks_create', { workspace: W, kind: 'task', title: `${tag}${i}`, plan: 'PLAN-001' }),
        );
      await Promise.all([...burst(a, 'a'), ...burst(b, 'b')]);
      const notes = await a.ok<{ entries: Array<{ content: string; seq: number }> }>('branchmind_show', {
        workspace: W,
        branch: 'main',
        doc: 'notes',
        limit: 200,
      });
      assert.equal(notes.entries.length, 20);
      assert.equal(new Set(notes.entries.map((e) => e.seq)).size, 20);
      const ctx = await b.ok<{ items: Array<{ id: string }> }>('tasks_context', { workspace: W, limit: 100 });
      const ids = ctx.items.map((i) => i.id).filter((id) => id.startsWith('TASK-'));
      assert.equal(ids.length, 20);
      assert.deepEqual(
        [...ids].sort(),
        Array.from({ length: 20 }, (_, i) => `TASK-${String(i + 1).padStart(3, '0')}`),
      );
      const events = await store.get<{ n: number }>('SELECT COUNT(*) AS n FROM task_events');
      const traces = await store.get<{ n: number }>(
        "SELECT COUNT(*) AS n FROM doc_entries WHERE kind = 'trace'",
      );
      assert.equal(Number(events?.n), 21);
      assert.equal(Number(traces?.n), 21);
    } finally {
      await a.close();
      await b.close();
      await dispose();
    }
  });
  test('every acknowledged write survives SIGKILL of the noema mcp process', async () => {
    const { url, store, dispose } = await factory.open();
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [NOEMA_BIN, 'mcp'],
      env: { ...(process.env as Record<string, string>), NOEMA_DB: url },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'kill-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      await client.callTool({ name: 'branchmind_init', arguments: { workspace: W } });
      const acked: number[] = [];
      const inflight = Array.from({ length: 40 }, (_, i) =>
        client
          .callTool({
            name: 'branchmind_notes_commit',
            arguments: { workspace: W, doc: 'notes', content: `k${i}` },
          })
          .then((r) => {
            if (!r.isError) acked.push((r.structuredContent as { entry: { seq: number } }).entry.seq);
          })
          .catch(() => undefined),
      );
      await waitUntil('ten acknowledged commits', () => acked.length >= 10, { intervalMs: 2 });
      assert.ok(transport.pid);
      process.kill(transport.pid as number, 'SIGKILL');
      await Promise.allSettled(inflight);
      const rows = await store.all<{ seq: number }>(
        "SELECT seq FROM doc_entries WHERE workspace = ? AND doc = 'notes'",
        [W],
      );
      const stored = new Set(rows.map((r) => Number(r.seq)));
      for (const seq of acked) assert.ok(stored.has(seq), `acknowledged seq ${seq} is durable`);
    } finally {
      await client.close().catch(() => undefined);
      await dispose();
    }
  });
});
