/** Redaction: credential headers and fields by name, configured secret values anywhere. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { createRedactor, REDACTED, secretsFromEnv } from './redact.ts';

test('credential headers are blanked whatever their case; other headers keep their values', () => {
  const r = createRedactor([]);
  assert.deepEqual(
    r.headers({ Authorization: 'Bearer x', 'X-Api-Key': 'k', Cookie: 'a=b', 'content-type': 'json' }),
    {
      Authorization: REDACTED,
      'X-Api-Key': REDACTED,
      Cookie: REDACTED,
      'content-type': 'json',
    },
  );
});

test('configured secret values are replaced inside text, keys and nested JSON', () => {
  const r = createRedactor(['s3cr3t-value']);
  assert.equal(r.text('a s3cr3t-value b s3cr3t-value'), `a ${REDACTED} b ${REDACTED}`);
  assert.deepEqual(r.json({ list: ['x s3cr3t-value'], nested: { api_key: 'plain', ok: 1 } }), {
    list: [`x ${REDACTED}`],
    nested: { api_key: REDACTED, ok: 1 },
  });
});

test('secretsFromEnv takes values of variables named like keys, tokens, secrets and passwords', () => {
  const found = secretsFromEnv({
    NOEMA_LLM_API_KEY: 'sk-123456',
    NOEMA_TOKEN: 'tok-abcdef',
    DB_PASSWORD: 'hunter22',
    NOEMA_LLM_BASE_URL: 'http://x',
    SHORT_KEY: 'abc',
  });
  assert.deepEqual(found.sort(), ['hunter22', 'sk-123456', 'tok-abcdef']);
});

test('jsonText equals JSON.stringify of the redacted copy for any JSON value', () => {
  const secret = 'zz-secret-zz';
  // One that JSON text escapes, too: it must not pass the quick scan in its escaped form.
  const quoted = 'qq-"sec\\ret-qq';
  const r = createRedactor([secret, quoted]);
  const key = fc.oneof(fc.string(), fc.constantFrom('authorization', 'Cookie', 'x-api-key', 'note'));
  const leaf = fc.oneof(
    fc.string(),
    fc.constant(`has ${secret} inside`),
    fc.constant(`has ${quoted} inside`),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
  );
  const value = fc.letrec((tie) => ({
    v: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('v')), fc.dictionary(key, tie('v'))),
  })).v;
  fc.assert(
    fc.property(value, (v) => {
      const text = r.jsonText(v);
      assert.equal(text, JSON.stringify(r.json(v)));
      assert.equal(text.includes(secret), false);
      assert.equal(text.includes(quoted) || text.includes(JSON.stringify(quoted).slice(1, -1)), false);
      // A value its encoding found clean is handed back as it is: it must need no redaction.
      const checked = r.jsonTextChecked(v);
      assert.equal(checked.text, text);
      if (checked.clean) {
        assert.equal(JSON.stringify(v), text);
        assert.equal(r.clean(v), v);
      }
    }),
  );
});

test('a secret holding a quote, backslash or control character is redacted in JSON text too', () => {
  // JSON writes it escaped (`pw\"Q7\\Z9\n-tok`), as it appears in a request body or a streamed event.
  const secret = 'pw"Q7\\Z9\n-tok';
  const r = createRedactor([secret]);
  const value = { note: `key ${secret} here`, nested: [secret] };
  const leaked = (s: string) => s.includes('Q7');
  assert.equal(leaked(r.jsonText(value)), false);
  assert.equal(leaked(r.jsonTextChecked(value).text), false);
  assert.equal(r.jsonTextChecked(value).clean, false);
  assert.equal(leaked(JSON.stringify(r.clean(value))), false);
  assert.equal(leaked(r.headersText({ 'x-note': secret })), false);
  // A JSON body or event kept as text (a chunk, a response text) holds the escaped form.
  assert.equal(
    r.text(`data: ${JSON.stringify(value)}`),
    `data: {"note":"key ${REDACTED} here","nested":["${REDACTED}"]}`,
  );
});

test('a "__proto__" key is kept as a member of the redacted copy, in a JSON value and in headers', () => {
  const secret = 'zz-secret-zz';
  const r = createRedactor([secret]);
  const body = JSON.parse(`{"__proto__":{"note":"${secret}"},"a":1}`) as Record<string, unknown>;
  const copy = r.json(body);
  assert.equal(JSON.stringify(copy), `{"__proto__":{"note":"${REDACTED}"},"a":1}`);
  assert.equal(Object.getPrototypeOf(copy), Object.prototype, 'the copy has the usual prototype');
  assert.equal(r.jsonText(body), JSON.stringify(copy));
  const headers = JSON.parse(`{"__proto__":"${secret}","x-a":"b"}`) as Record<string, string>;
  assert.equal(JSON.stringify(r.headers(headers)), `{"__proto__":"${REDACTED}","x-a":"b"}`);
  assert.equal(r.headersText(headers), JSON.stringify(r.headers(headers)));
});

test('headersText equals JSON.stringify of the redacted headers for any headers', () => {
  const secret = 'zz-secret-"zz';
  const r = createRedactor([secret]);
  const name = fc.oneof(fc.string(), fc.constantFrom('authorization', 'Cookie', 'X-Api-Key', 'content-type'));
  const val = fc.oneof(fc.string(), fc.constant(`Bearer ${secret}`), fc.constant('a\u0000b'));
  fc.assert(
    fc.property(fc.dictionary(name, val), (h) => {
      const text = r.headersText(h);
      assert.equal(text, JSON.stringify(r.headers(h)));
      assert.equal(text.includes('zz-secret-'), false);
    }),
  );
});

/** What a window lets through for `pieces`, joined, with its end. */
function streamed(r: ReturnType<typeof createRedactor>, pieces: string[]): string {
  const w = r.stream();
  let out = '';
  for (const p of pieces) out += w.push(p);
  return out + w.end();
}

test('a streamed secret split at every offset, into two or three pieces, never passes the window', () => {
  const secret = 'sk-live-0123456789abcdef';
  const r = createRedactor([secret]);
  const text = `key ${secret} and ${secret}!`;
  for (let i = 0; i <= text.length; i++) {
    const two = streamed(r, [text.slice(0, i), text.slice(i)]);
    assert.equal(two, r.text(text), `split at ${i}`);
    for (let j = i; j <= text.length; j++) {
      const three = streamed(r, [text.slice(0, i), text.slice(i, j), text.slice(j)]);
      assert.equal(three, r.text(text), `split at ${i} and ${j}`);
    }
  }
  // One character a piece: every boundary at once.
  assert.equal(streamed(r, [...text]), `key ${REDACTED} and ${REDACTED}!`);
});

test('the window holds back only what could start a secret, and gives it all back at the end', () => {
  const r = createRedactor(['sk-live-0123456789']);
  const w = r.stream();
  assert.equal(w.push('hello wor'), 'hello wor', 'nothing like a secret: nothing held');
  assert.equal(w.push('ld, sk-li'), 'ld, ');
  assert.equal(w.held, 5);
  assert.equal(w.push('ke'), 'sk-like', 'not a secret after all: let through with the next piece');
  assert.equal(w.push(' sk'), ' ');
  assert.equal(w.end(), 'sk', 'the end of the stream lets the held text through');
  assert.equal(w.held, 0);
  assert.equal(createRedactor([]).stream().push('sk-live-0'), 'sk-live-0', 'no secrets: nothing held');
});

test('any split of any text through the window is the redacted whole, and never holds a secret', () => {
  const secrets = ['sk-live-0123456789', 'aaaaaa-tok', 'pw"Q7\\Z9-tok'];
  const r = createRedactor(secrets);
  const part = fc.oneof(
    fc.string({ maxLength: 6 }),
    fc.constantFrom(...secrets, 'sk-live-', 'aaaa', 'pw"Q7', JSON.stringify(secrets[2]).slice(1, -1)),
  );
  fc.assert(
    fc.property(fc.array(part, { maxLength: 12 }), fc.array(fc.nat(), { maxLength: 8 }), (parts, cuts) => {
      const text = parts.join('');
      const at = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
      const pieces: string[] = [];
      let from = 0;
      for (const c of at) {
        pieces.push(text.slice(from, c));
        from = c;
      }
      pieces.push(text.slice(from));
      const out = streamed(r, pieces);
      for (const s of secrets) assert.equal(out.includes(s), false);
      assert.equal(out.includes('Q7\\\\Z9'), false);
      assert.equal(out, r.text(text));
    }),
    { numRuns: 2000 },
  );
});
