/** NOTIFY payloads: every payload fits PostgreSQL's 8000-byte cap, order is kept, and what cannot fit becomes a gap marker. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { EngineEvent } from '../engine.ts';
import { encodeBatches, type NotifyMessage, payloadHead } from './encode.ts';

const RUN = '0190c0de-0000-7000-8000-000000000001';

function randomEvents(n: number, seed: number): EngineEvent[] {
  let x = seed;
  const rnd = () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
  const text = (len: number) => (rnd() < 0.5 ? '語'.repeat(len) : 'a'.repeat(len));
  const out: EngineEvent[] = [];
  for (let i = 1; i <= n; i++) {
    const size = Math.floor(rnd() ** 3 * 12_000);
    const pick = rnd();
    if (pick < 0.3) {
      out.push({
        seq: i,
        type: 'node.updated',
        run_id: RUN,
        node_id: 'n',
        step: 1,
        data: { t: text(size) },
        at: 1,
      });
    } else if (pick < 0.5) {
      out.push({
        seq: i,
        type: 'node.finished',
        run_id: RUN,
        node_id: 'n',
        node_type: 't',
        step: 1,
        attempt: 1,
        status: 'fail',
        duration_ms: 1,
        error: text(size),
        at: 1,
      });
    } else if (pick < 0.6) {
      // An action type is never abbreviated: a large one cannot be sent.
      out.push({
        seq: i,
        type: 'contract.transitioned',
        run_id: RUN,
        contract_id: 'c',
        action_type: text(size),
        from: null,
        to: 'PENDING',
        actor: 'engine',
        at: 1,
      });
    } else {
      out.push({
        seq: i,
        type: 'node.started',
        run_id: RUN,
        node_id: 'n',
        node_type: 't',
        step: 1,
        attempt: 1,
        at: 1,
      });
    }
  }
  return out;
}

test('every payload fits in 8000 bytes; events keep their order; each event is sent once or named in a gap', () => {
  for (let seed = 1; seed <= 20; seed++) {
    const events = randomEvents(200, seed);
    const { payloads, dropped } = encodeBatches('host:1:abc', events);
    const sent: number[] = [];
    const gaps: number[] = [];
    for (const p of payloads) {
      assert.ok(
        Buffer.byteLength(p, 'utf8') < 8000,
        `seed ${seed}: payload of ${Buffer.byteLength(p, 'utf8')} bytes`,
      );
      const msg = JSON.parse(p) as NotifyMessage;
      sent.push(...msg.events.map((e) => e.seq));
      gaps.push(...(msg.gaps ?? []).map((g) => g.seq));
    }
    assert.deepEqual(
      gaps,
      dropped.map((e) => e.seq),
      `seed ${seed}: every dropped event is named in a gap`,
    );
    assert.deepEqual(
      [...sent, ...gaps].sort((a, b) => a - b),
      events.map((e) => e.seq),
      `seed ${seed}: each event sent or gapped exactly once`,
    );
    assert.deepEqual(
      sent,
      [...sent].sort((a, b) => a - b),
      `seed ${seed}: order kept`,
    );
  }
});

test('a large body is abbreviated and marked truncated rather than dropped', () => {
  const { payloads, dropped } = encodeBatches('o', [
    {
      seq: 1,
      type: 'node.updated',
      run_id: RUN,
      node_id: 'n',
      step: 1,
      data: { t: '語'.repeat(5_000) },
      at: 1,
    },
  ]);
  assert.equal(dropped.length, 0);
  const msg = JSON.parse(payloads[0]!) as NotifyMessage;
  assert.deepEqual(msg.events[0], {
    seq: 1,
    type: 'node.updated',
    run_id: RUN,
    node_id: 'n',
    step: 1,
    data: null,
    at: 1,
    truncated: true,
  });
});

test('each payload is exactly the JSON of its NotifyMessage (origin, events, gaps)', () => {
  const { payloads } = encodeBatches('origin "quoted" 語', randomEvents(300, 11));
  assert.ok(payloads.length > 1);
  for (const p of payloads) {
    const msg = JSON.parse(p) as NotifyMessage;
    const expected: NotifyMessage = { origin: msg.origin, events: msg.events };
    if (msg.gaps) expected.gaps = msg.gaps;
    assert.equal(p, JSON.stringify(expected));
    assert.equal(msg.origin, 'origin "quoted" 語');
    // The receiver skips its own payloads by this prefix, unparsed (bus.ts).
    assert.ok(p.startsWith(payloadHead('origin "quoted" 語')));
    assert.ok(!p.startsWith(payloadHead('origin "quoted"')));
  }
});
