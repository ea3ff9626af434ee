import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ResponseTextScanner } from './response-scanner.ts';

/** Feeds `text` in the given pieces; returns the pieces the scanner produced. */
function scan(pieces: string[]): { out: string[]; scanner: ResponseTextScanner } {
  const scanner = new ResponseTextScanner();
  return { out: pieces.map((p) => scanner.feed(p)), scanner };
}

const DOCS: Array<{ name: string; text: string }> = [
  { name: 'plain', text: '{"thinking":"t","response":"2 + 3 = 5"}' },
  {
    name: 'escapes',
    text: JSON.stringify({ thinking: 'x', response: 'a "quote", a \\ backslash, a /\n\ttab\r\b\f end' }),
  },
  {
    name: 'unicode escapes and surrogate pairs',
    text: '{"thinking":"x","response":"caf\\u00e9 \\ud83d\\ude00 \\u2603 done"}',
  },
  { name: 'raw unicode', text: JSON.stringify({ thinking: 'ü', response: 'naïve 😀 日本語 ok' }) },
  {
    name: 'a nested "response" key and tricky strings come first',
    text: JSON.stringify({
      thinking: 'keys like "response": and braces { ] inside strings',
      tool_calls: [{ name: 'add', args: { response: 'not this one', n: [1, { response: 'nor this' }] } }],
      context_updates: { facts: { response: 'no' } },
      response: 'this one {"response":"x"}',
      switch_mode: null,
    }),
  },
  {
    name: 'pretty printed in a code fence',
    text: '```json\n{\n  "thinking" : "t",\n  "response" :  "fenced \\"text\\""\n}\n```',
  },
  { name: 'empty response', text: '{"thinking":"t","response":""}' },
];

const expected = (text: string): string => {
  const json = text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1);
  return (JSON.parse(json) as { response?: string | null }).response ?? '';
};

describe('the incremental scanner of the reply\'s "response" string', () => {
  for (const doc of DOCS) {
    test(`${doc.name}: split at every position, and at every pair of positions`, () => {
      const want = expected(doc.text);
      const t = doc.text;
      for (let i = 0; i <= t.length; i++) {
        const { out, scanner } = scan([t.slice(0, i), t.slice(i)]);
        assert.equal(out.join(''), want, `split at ${i}`);
        assert.equal(scanner.length, want.length);
        assert.equal(scanner.finished, want !== '' || /"response":\s*""/.test(t));
        for (const piece of out) {
          const last = piece.charCodeAt(piece.length - 1);
          assert.ok(!(last >= 0xd800 && last <= 0xdbff), 'no piece ends inside a surrogate pair');
        }
      }
      for (let i = 0; i <= t.length; i += 3)
        for (let j = i; j <= t.length; j += 2) {
          const { out } = scan([t.slice(0, i), t.slice(i, j), t.slice(j)]);
          assert.equal(out.join(''), want, `split at ${i} and ${j}`);
        }
    });
  }

  test('one UTF-16 unit at a time: the text arrives as it streams, not at the end', () => {
    const t = '{"thinking":"t","response":"hello 😀 world","switch_mode":null}';
    const { out } = scan(t.split(''));
    assert.equal(out.join(''), 'hello 😀 world');
    assert.equal(out.filter((p) => p !== '').length, 'hello 😀 world'.length - 1, 'one piece per character');
    // Nothing after the closing quote.
    assert.equal(out.slice(t.indexOf('","switch_mode')).join(''), '');
  });

  test('a reply without a response (null, or tool calls only) yields nothing', () => {
    for (const t of [
      '{"thinking":"t","response":null,"tool_calls":[{"name":"add","args":{"response":"x"}}]}',
      '{"thinking":"response","tool_calls":[]}',
      'not json at all "response": "x"',
    ]) {
      const { out, scanner } = scan([t]);
      assert.equal(out.join(''), '', t);
      assert.equal(scanner.finished, false);
    }
  });
});
