/** RawJsonSplice: stand-ins in a serialized message are replaced by their JSON, and nothing else. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { jsonText, RawJsonSplice } from './raw-json.ts';

/** `text`'s UTF-8 bytes cut into pieces of `size` bytes (so a piece may end inside a character). */
function pieces(text: string, size = 3): Buffer[] {
  const bytes = Buffer.from(text);
  const out: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) out.push(bytes.subarray(at, at + size));
  return out;
}

/** An MCP result carrying `text` as a splice's stand-ins, as the dispatcher makes it. */
function result(splice: RawJsonSplice, text: string) {
  const json = pieces(text);
  return {
    content: [{ type: 'text', text: splice.standInText(json) }],
    structuredContent: splice.standIn(json),
  };
}

test('each stand-in is replaced in place, in a batch too: the object by its text as it is, the string by that text escaped', () => {
  const splice = new RawJsonSplice();
  const texts = [
    '{"b":1,"a":[1,2,{"c":"x"}]}',
    '{"10":"ten","2":"two","s":"\\"quoted\\" \\\\ back \\u0000 \\n"}',
    '{"é":"café","漢":"字","emoji":"🙂","sep":"\u2028\u2029","del":"\u007f"}',
  ];
  const batch = texts.map((text, id) => ({ jsonrpc: '2.0', id, result: result(splice, text) }));
  assert.equal(splice.used, true);
  const body = splice.splice(JSON.stringify(batch)).toString('utf8');
  for (const text of texts) {
    // The object's text as it is: its key order (integer-like keys last) is the text's, not an object's.
    assert.ok(body.includes(`"structuredContent":${text}`), body);
    // The string: the bytes `JSON.stringify` writes for the text.
    assert.ok(body.includes(`"text":${JSON.stringify(text)}`), body);
  }
  assert.deepEqual(
    JSON.parse(body),
    texts.map((text, id) => ({
      jsonrpc: '2.0',
      id,
      result: { content: [{ type: 'text', text }], structuredContent: JSON.parse(text) },
    })),
  );
});

test('stored JSON holding a control character: its string escaped by JSON.stringify, its object written again on one line', () => {
  // Not JSON that JSON.stringify writes, but JSON a caller might hand over: a raw newline and tab.
  const text = '{"a":\n\t"b"}';
  for (const withString of [true, false]) {
    const splice = new RawJsonSplice();
    const json = pieces(text);
    const message = {
      ...(withString ? { text: splice.standInText(json) } : {}),
      structured: splice.standIn(json),
    };
    const body = splice.splice(JSON.stringify(message)).toString('utf8');
    // Answers are framed by lines (stdio, an event stream's data): none inside one.
    assert.doesNotMatch(body, /[\n\t]/);
    assert.equal(body, JSON.stringify({ ...(withString ? { text } : {}), structured: { a: 'b' } }));
  }
});

test('text that only looks like a stand-in is left as it is: in strings, or with another splice’s token', () => {
  const other = new RawJsonSplice();
  const foreign = JSON.stringify(other.standIn(pieces('{"x":1}')));
  const foreignText = other.standInText(pieces('{"x":1}'));
  const splice = new RawJsonSplice();
  const mine = JSON.stringify(splice.standIn(pieces('{"y":2}')));
  const mineText = splice.standInText(pieces('{"z":3}'));
  const message = {
    // A stand-in's own text inside a string is escaped there: it is not a stand-in.
    text: mine,
    quoted: JSON.stringify(mineText),
    foreign: JSON.parse(foreign),
    foreignText,
    own: JSON.parse(mine),
    ownText: mineText,
  };
  const body = splice.splice(JSON.stringify(message)).toString('utf8');
  assert.deepEqual(JSON.parse(body), {
    text: mine,
    quoted: JSON.stringify(mineText),
    foreign: JSON.parse(foreign),
    foreignText,
    own: { y: 2 },
    ownText: '{"z":3}',
  });
});

test('a message without stand-ins is its own bytes; a stand-in without its text throws', () => {
  const splice = new RawJsonSplice();
  assert.equal(splice.used, false);
  const body = JSON.stringify({ result: { structuredContent: { a: 1 }, text: 'é' } });
  assert.deepEqual(splice.splice(body), Buffer.from(body));
  const standIn = JSON.stringify(splice.standIn(pieces('{}')));
  assert.throws(() => splice.splice(standIn.replace('#0', '#1')), /without its text/);
  const textStandIn = JSON.stringify(splice.standInText(pieces('{}')));
  assert.throws(() => splice.splice(textStandIn.replace('#t1', '#t7')), /without its text/);
});

test('jsonText decodes the pieces, ASCII or not, a character cut between pieces included', () => {
  for (const text of ['{"a":"plain"}', '{"é":"漢字 🙂"}']) {
    assert.equal(jsonText(pieces(text, 1)), text);
    assert.equal(jsonText(pieces(text, 1000)), text);
  }
});
