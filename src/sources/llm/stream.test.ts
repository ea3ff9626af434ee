/** Reading a streamed completion: what happens at `[DONE]` to the rest of the body. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { newStreamState, readCompletionStream } from './stream.ts';

const EVENTS = 'data: {"choices":[{"delta":{"content":"hi"}}]}\n\ndata: [DONE]\n\n';

/**
 * A response whose body yields `parts` one read at a time (nothing read ahead), then what `after`
 * does on the read that follows them; `cancelled` tells whether the reader cancelled the body.
 */
function response(parts: string[], after: 'end' | 'stall' | 'more') {
  const log = { cancelled: false };
  let i = 0;
  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (i < parts.length) {
          controller.enqueue(new TextEncoder().encode(parts[i++]));
          return;
        }
        // The end (or more data) arrives after a promise turn, as a socket's would.
        await Promise.resolve();
        if (after === 'end') controller.close();
        else if (after === 'more') controller.enqueue(new TextEncoder().encode('data: {"late":1}\n\n'));
        else await new Promise(() => {});
      },
      cancel() {
        log.cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { res: new Response(body, { headers: { 'content-type': 'text/event-stream' } }), log };
}

test('a body that ends right after [DONE] is read to its end, not cancelled (a cancel aborts the fetch)', async () => {
  const { res, log } = response([EVENTS], 'end');
  const state = newStreamState();
  await readCompletionStream(res, state, Date.now());
  assert.equal(state.rawText, 'hi');
  assert.equal(log.cancelled, false);
});

test('a body still open after [DONE] is cancelled at once, and what follows [DONE] is not read', async () => {
  for (const after of ['stall', 'more'] as const) {
    const { res, log } = response([EVENTS], after);
    const state = newStreamState();
    await readCompletionStream(res, state, Date.now());
    assert.equal(state.rawText, 'hi', after);
    assert.equal(state.chunks.length, 2, `${after}: [DONE] is the last event recorded`);
    assert.equal(log.cancelled, true, after);
  }
});

test('a failure while reading cancels the body', async () => {
  const { res, log } = response(['data: not json\n\n'], 'stall');
  await assert.rejects(readCompletionStream(res, newStreamState(), Date.now()), /not JSON/);
  assert.equal(log.cancelled, true);
});
