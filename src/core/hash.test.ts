import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { contentHash, isSha256Hex, sha256Hex } from './hash.ts';

describe('sha256Hex', () => {
  it('matches the FIPS 180-2 test vectors', () => {
    assert.equal(sha256Hex(''), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    assert.equal(sha256Hex('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('hashes strings as UTF-8, identically to their bytes', () => {
    assert.equal(sha256Hex('€'), sha256Hex(new TextEncoder().encode('€')));
    assert.equal(sha256Hex(new Uint8Array([0x61, 0x62, 0x63])), sha256Hex('abc'));
  });
});

describe('contentHash', () => {
  it('is the sha256 of the canonical JSON', () => {
    assert.equal(contentHash({ b: 1, a: [true] }), sha256Hex('{"a":[true],"b":1}'));
  });

  it('does not depend on key insertion order', () => {
    assert.equal(contentHash({ x: 1, y: { p: 2, q: 3 } }), contentHash({ y: { q: 3, p: 2 }, x: 1 }));
    assert.notEqual(contentHash({ x: 1 }), contentHash({ x: 2 }));
  });
});

describe('isSha256Hex', () => {
  it('accepts 64 lowercase hex digits only', () => {
    assert.equal(isSha256Hex(sha256Hex('abc')), true);
    assert.equal(isSha256Hex(sha256Hex('abc').toUpperCase()), false);
    assert.equal(isSha256Hex('ab'), false);
    assert.equal(isSha256Hex(`${sha256Hex('abc')}0`), false);
    assert.equal(isSha256Hex(42), false);
  });
});
