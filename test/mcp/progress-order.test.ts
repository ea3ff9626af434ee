/**
 * A tool call's progress notifications are all sent before its result, also over a transport that
 * awaits before it writes (the result waits for the sends in flight): the world's `run_turn`
 * reports progress without awaiting it, so without that wait its result could overtake them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { bindWorldRuntime } from '../../src/runtimes/world/index.ts';
import { createMcpServer } from '../../src/surfaces/mcp/server.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { startParkKit } from '../../src/testing/world-kit.ts';
import { recordProgress } from './wire.ts';

describeEachStore('MCP progress order', (factory) => {
  test('every progress of run_turn reaches the client before its result, though the transport writes notifications late', async () => {
    await factory.withStore(async ({ store }) => {
      const kit = await startParkKit(store);
      const unbind = bindWorldRuntime(store, kit.runtime.engine);
      const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
      // A transport that awaits before it writes a notification (as one writing to a slow socket).
      const send = serverSide.send.bind(serverSide);
      serverSide.send = async (message, options) => {
        if (!('id' in message)) await new Promise((r) => setTimeout(r, 20));
        return send(message, options);
      };
      const server = createMcpServer(store, 'world');
      await server.connect(serverSide);
      const client = new Client({ name: 'progress-order-test', version: '1.0.0' });
      await client.connect(clientSide);
      const progress = recordProgress(clientSide);
      try {
        await kit.world('park', kit.bundle.scenario_hash);
        const r = await client.callTool({ name: 'run_turn', arguments: { world_slug: 'park' } }, undefined, {
          onprogress: () => {},
        });
        assert.equal((r.structuredContent as { status: string }).status, 'committed');
        assert.deepEqual(progress.afterResult, [], 'no progress after the result');
        assert.ok(
          progress.beforeResult.includes('subject ant: patch 2 accepted'),
          progress.beforeResult.join(' | '),
        );
      } finally {
        await client.close();
        unbind();
        await kit.close();
      }
    });
  });
});
