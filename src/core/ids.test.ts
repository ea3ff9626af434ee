import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ErrorCode, NoemaError } from './errors.ts';
import {
  assertEntityId,
  assertHumanId,
  hasControlChars,
  isUuid,
  parseEntityId,
  parseHumanId,
  uuidv7,
  uuidv7Timestamp,
} from './ids.ts';

describe('uuidv7', () => {
  it('produces RFC 9562 version 7, variant 10 ids in lowercase canonical form', () => {
    const id = uuidv7();
    assert.match(id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(isUuid(id), true);
  });

  it('embeds the current Unix millisecond timestamp', () => {
    const before = Date.now();
    const ts = uuidv7Timestamp(uuidv7());
    const after = Date.now();
    // The counter may push the timestamp a few ms ahead under heavy load from earlier tests.
    assert.ok(ts >= before && ts <= after + 5, `${before} <= ${ts} <= ${after}`);
  });

  it('sorts 10k sequentially created ids in creation order, without duplicates', () => {
    const ids = Array.from({ length: 10000 }, () => uuidv7());
    const sorted = [...ids].sort();
    assert.deepEqual(sorted, ids);
    assert.equal(new Set(ids).size, ids.length);
  });
});

describe('isUuid and uuidv7Timestamp', () => {
  it('accepts canonical UUIDs of any version and rejects other strings', () => {
    assert.equal(isUuid('550e8400-e29b-41d4-a716-446655440000'), true);
    assert.equal(isUuid('550E8400-E29B-41D4-A716-446655440000'), true);
    assert.equal(isUuid('550e8400e29b41d4a716446655440000'), false);
    assert.equal(isUuid('not-a-uuid'), false);
    assert.equal(isUuid(7), false);
  });

  it('reads the timestamp of the RFC 9562 Appendix A.6 example', () => {
    assert.equal(uuidv7Timestamp('017f22e2-79b0-7cc3-98c4-dc0c0c07398f'), 0x017f22e279b0);
  });

  it('refuses to read a timestamp from a non-v7 UUID', () => {
    assert.throws(() => uuidv7Timestamp('550e8400-e29b-41d4-a716-446655440000'), NoemaError);
  });
});

describe('hasControlChars', () => {
  it('detects C0, DEL and C1 characters only', () => {
    assert.equal(hasControlChars('a\u0000'), true);
    assert.equal(hasControlChars('a\tb'), true);
    assert.equal(hasControlChars('\u007f'), true);
    assert.equal(hasControlChars('\u0085'), true);
    assert.equal(hasControlChars('\u00a0é😀'), false);
  });
});

describe('parseHumanId', () => {
  it('accepts letters, digits and ._-/:@+', () => {
    for (const s of ['main', 'feature/x-1', 'team@org:ws', 'v1.2+build_3', 'café', 'ветка']) {
      assert.deepEqual(parseHumanId(s, 'name'), { ok: true, value: s });
    }
  });

  it('rejects empty, over-length, whitespace, control characters and other punctuation', () => {
    const rejected = [
      '',
      'a'.repeat(129),
      ' lead',
      'trail ',
      'in side',
      'tab\tx',
      'nul\u0000',
      'c1\u0085',
      'a#b',
      'é😀',
    ];
    for (const s of rejected) {
      const r = parseHumanId(s, 'name');
      assert.equal(r.ok, false, JSON.stringify(s));
      if (!r.ok) assert.match(r.error, /^name /);
    }
    assert.equal(parseHumanId(42, 'name').ok, false);
  });

  it('honours a custom maxLength', () => {
    assert.equal(parseHumanId('abcd', 'name', 3).ok, false);
    assert.equal(parseHumanId('abc', 'name', 3).ok, true);
  });
});

describe('parseEntityId', () => {
  it('accepts liberal unicode including inner spaces and punctuation', () => {
    for (const s of ['node 1', 'user#42', '😀 émoji', 'a'.repeat(256)]) {
      assert.equal(parseEntityId(s, 'id').ok, true, s);
    }
  });

  it('rejects empty, over-length, edge whitespace, control characters and lone surrogates', () => {
    for (const s of ['', 'a'.repeat(257), ' x', 'x\n', 'a\u0007b', 'a\u009fb', '\ud800']) {
      assert.equal(parseEntityId(s, 'id').ok, false, JSON.stringify(s));
    }
  });
});

describe('asserting id grammars', () => {
  it('return the id when valid', () => {
    assert.equal(assertHumanId('main', 'branch'), 'main');
    assert.equal(assertEntityId('node 1', 'node_id'), 'node 1');
  });

  it('throw INVALID_INPUT with details.field when invalid', () => {
    for (const fn of [() => assertHumanId('bad name', 'branch'), () => assertEntityId('', 'node_id')]) {
      assert.throws(fn, (e: unknown) => {
        assert.ok(e instanceof NoemaError);
        assert.equal(e.code, ErrorCode.INVALID_INPUT);
        assert.ok(e.details.field === 'branch' || e.details.field === 'node_id');
        return true;
      });
    }
  });
});
