/**
 * The stored chunk format: a stream stored as differences reads back exactly as it arrived, whatever
 * the texts hold (surrogate pairs cut at any place, lone surrogates, quotes, empty texts, texts with
 * nothing in common), much smaller than whole; arrays of whole elements (older rows) read the same;
 * anything else is refused, not guessed at.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isNoemaError } from '../../core/errors.ts';
import { chunkAfter, decodeChunks, wholeChunk } from './chunk-codec.ts';

function store(texts: readonly string[]): string {
  let prev: string | null = null;
  const parts = texts.map((t, i) => {
    const s = chunkAfter(prev, i * 3, t);
    prev = t;
    return s;
  });
  return `[${parts.join(',')}]`;
}

function event(content: string, finish: string | null = null): string {
  return JSON.stringify({
    id: 'chatcmpl-scripted-1795585486162',
    object: 'chat.completion.chunk',
    created: 1795585486,
    model: 'scripted',
    choices: [{ index: 0, delta: { content }, finish_reason: finish }],
  });
}

test('a stream of OpenAI-style events reads back exactly, at about a fifth of its text', () => {
  const texts = [
    ...Array.from({ length: 40 }, (_, i) => event(`{"kind":"tool_ca`.slice(0, (i % 16) + 1))),
    event('', 'stop'),
    '[DONE]',
  ];
  const json = store(texts);
  assert.deepEqual(
    decodeChunks(json, 'c1'),
    texts.map((t, i) => [i * 3, t]),
  );
  const whole = `[${texts.map((t, i) => wholeChunk(i * 3, t)).join(',')}]`;
  assert.ok(json.length < whole.length / 4, `${json.length} of ${whole.length}`);
});

test('texts that share little, or nothing, are stored whole and read back', () => {
  const texts = ['', 'a', '', 'abc', 'xyz', '[DONE]', '[DONE]'];
  const json = store(texts);
  assert.deepEqual(
    decodeChunks(json, 'c1').map(([, t]) => t),
    texts,
  );
  assert.ok(!JSON.parse(json).some((e: unknown[]) => e.length !== 2), 'short texts are stored whole');
});

test('surrogate pairs are never cut, and lone surrogates, quotes and backslashes survive', () => {
  const base = `${'x'.repeat(20)}😀😀"quoted\\"${'y'.repeat(20)}`;
  const texts = [
    base,
    base.replace('😀😀', '😀😁'), // differs in the low half of a pair
    base.replace('😀😀', '😁😀'), // … and in a high half
    `${base}\ud800`, // a lone high surrogate at the end
    `\udc00${base}`, // a lone low surrogate at the start
    base.replace('"quoted\\"', 'é ☕ \n\t'),
  ];
  const json = store(texts);
  assert.deepEqual(
    decodeChunks(json, 'c1').map(([, t]) => t),
    texts,
  );
  // No difference keeps half of a pair: its kept prefix never ends in a high surrogate, its kept
  // suffix never starts with a low one (the middle's JSON would hold the other half alone).
  const elements = JSON.parse(json) as unknown[][];
  let differences = 0;
  for (const [i, e] of elements.entries()) {
    if (e.length !== 4) continue;
    differences++;
    const prev = texts[i - 1]!;
    const keep = e[1] as number;
    const tail = e[3] as number;
    assert.ok(keep === 0 || !/[\ud800-\udbff]/.test(prev[keep - 1]!), `element ${i} keeps a high half`);
    assert.ok(
      tail === 0 || !/[\udc00-\udfff]/.test(prev[prev.length - tail]!),
      `element ${i} keeps a low half`,
    );
  }
  assert.ok(differences >= 4, 'the texts are stored as differences');
});

test('arrays of whole elements, as stored before differences existed, read the same', () => {
  const old = JSON.stringify([
    [0, 'data: one'],
    [5, '[DONE]'],
  ]);
  assert.deepEqual(decodeChunks(old, 'c1'), [
    [0, 'data: one'],
    [5, '[DONE]'],
  ]);
  assert.deepEqual(decodeChunks('[]', 'c1'), []);
});

test('a difference that starts an array, reaches past its text or is malformed is refused', () => {
  for (const bad of [
    '[[0,1,"x",0]]', // a difference with nothing before it
    '[[0,"abc"],[1,2,"x",2]]', // keeps 4 of 3 characters
    '[[0,"abc"],[1,-1,"x",0]]',
    '[[0,"abc"],[1,1.5,"x",0]]',
    '[[0,"abc"],[1,1,2,0]]',
    '[[0,"abc"],["1","x"]]',
    '[[0]]',
    '{"a":1}',
    'not json',
  ])
    assert.throws(
      () => decodeChunks(bad, 'c1'),
      (e: unknown) => isNoemaError(e) && e.code === 'LLM_TRACE_CORRUPT' && e.details?.llm_call_id === 'c1',
      bad,
    );
});
