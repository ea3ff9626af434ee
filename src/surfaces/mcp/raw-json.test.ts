/** RawJsonSplice: stand-ins in a serialized message are replaced by their texts, and nothing else. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RawJsonSplice } from './raw-json.ts';

test('each stand-in in a serialized message is replaced by its text, in place, in a batch too', () => {
  const splice = new RawJsonSplice();
  const texts = ['{"b":1,"a":[1,2,{"c":"x"}]}', '{"10":"ten","2":"two","s":"\\"quoted\\" \\u0000"}'];
  const batch = texts.map((text, id) => ({
    jsonrpc: '2.0',
    id,
    result: { content: [{ type: 'text', text }], structuredContent: splice.standIn(text) },
  }));
  assert.equal(splice.used, true);
  const body = splice.splice(JSON.stringify(batch));
  // The texts as they are: the key order of each (integer-like keys last) is the text's, not an object's.
  for (const text of texts) assert.ok(body.includes(`"structuredContent":${text}`), body);
  assert.deepEqual(
    JSON.parse(body),
    texts.map((text, id) => ({
      jsonrpc: '2.0',
      id,
      result: { content: [{ type: 'text', text }], structuredContent: JSON.parse(text) },
    })),
  );
});

test('text that only looks like a stand-in is left as it is: in strings, or with another splice’s token', () => {
  const other = new RawJsonSplice();
  const foreign = JSON.stringify(other.standIn('{"x":1}'));
  const splice = new RawJsonSplice();
  const mine = JSON.stringify(splice.standIn('{"y":2}'));
  const message = {
    // A stand-in's own text inside a string is escaped there: it is not a stand-in.
    text: mine,
    foreign: JSON.parse(foreign),
    own: JSON.parse(mine),
  };
  const body = splice.splice(JSON.stringify(message));
  assert.deepEqual(JSON.parse(body), { text: mine, foreign: JSON.parse(foreign), own: { y: 2 } });
});

test('a message without stand-ins is returned unchanged; a stand-in without its text throws', () => {
  const splice = new RawJsonSplice();
  assert.equal(splice.used, false);
  const body = JSON.stringify({ result: { structuredContent: { a: 1 } } });
  assert.equal(splice.splice(body), body);
  const standIn = JSON.stringify(splice.standIn('{}'));
  assert.throws(() => splice.splice(standIn.replace('#0', '#1')), /without its text/);
});
