/**
 * Fuzz over the catalog's routes and parameters on a real server, on both stores: arbitrary ids and
 * hashes (unicode, NUL, over-long, malformed percent-encoding) and arbitrary query strings (known
 * filters with wrong values, unknown names, repeated names, bad limit/cursor/max_chars/format).
 * Every answer is 200, 400 or 404 with the error envelope — never a 500.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { defaultCatalog } from '../../src/surfaces/http/catalog/index.ts';
// The served kinds register when a server first loads its routes (on demand): listed before any request.
import '../../src/surfaces/http/kinds/index.ts';
import { describeEachStore } from '../../src/testing/each-store.ts';
import { startTestHttp } from './helpers.ts';

const RAW_JUNK = ['%', '%zz', '%E0%A4%A', '%00', '%C0%80', '..', '%2F', '%u0041', '\u0000', '%FF'];

const text = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.constantFrom(
    '',
    ' ',
    '0',
    '-1',
    '1e3',
    '999999999999',
    'null',
    '[]',
    '{}',
    'a'.repeat(300),
    '0'.repeat(64),
  ),
);
const pathPart = fc.oneof(
  text.map((s) => encodeURIComponent(s)),
  fc.constantFrom(...RAW_JUNK),
);

describeEachStore('catalog fuzz', (factory) => {
  test('no parameter or id makes a catalog route answer 500', async () => {
    const { store, dispose } = await factory.open();
    const http = await startTestHttp(store);
    try {
      const kinds = defaultCatalog.all();
      const names = [...new Set(kinds.flatMap((k) => Object.keys(k.filters ?? {})))];
      const param = fc.oneof(
        fc.constantFrom(...names, 'limit', 'cursor', 'max_chars', 'full', 'format'),
        text,
      );
      const query = fc.array(fc.tuple(param, text), { maxLength: 4 }).map((pairs) => {
        const q = new URLSearchParams();
        for (const [k, v] of pairs) q.append(k, v);
        return q.toString();
      });
      const path = fc.oneof(
        fc.constantFrom(
          ...kinds.filter((k) => k.list).map((k) => `/${k.kind}`),
          '/attempts/a/source-invocations',
        ),
        fc
          .tuple(fc.constantFrom(...kinds.filter((k) => k.key.by === 'id').map((k) => k.kind)), pathPart)
          .map(([k, id]) => `/${k}/${id}`),
        fc
          .tuple(
            fc.constantFrom(...kinds.filter((k) => k.key.by === 'hash').map((k) => k.kind)),
            pathPart,
            fc.boolean(),
          )
          .map(([k, h, uses]) => `/${k}/hash/${h}${uses ? '/uses' : ''}`),
        pathPart.map((id) => `/attempts/${id}/source-invocations`),
        pathPart.map((id) => `/runs/${id}/events`),
      );
      await fc.assert(
        fc.asyncProperty(path, query, async (p, q) => {
          const target = q ? `${p}?${q}` : p;
          const res = await http.get(target);
          if (p.endsWith('/events') && res.status === 200) return; // a stream for an existing run
          assert.ok(
            [200, 400, 404].includes(res.status),
            `${target} → ${res.status} ${res.text.slice(0, 300)}`,
          );
          if (res.status !== 200) {
            assert.equal(typeof res.body?.code, 'string', `${target}: envelope`);
            assert.equal(typeof res.body?.request_id, 'string');
          }
        }),
        { numRuns: 400 },
      );
    } finally {
      await http.close();
      await dispose();
    }
  });
});
