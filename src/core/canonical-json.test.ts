import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { canonicalJson, MAX_CANONICAL_DEPTH } from './canonical-json.ts';
import { ErrorCode, NoemaError } from './errors.ts';

function fromBits(hex: string): number {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, BigInt(`0x${hex}`));
  return view.getFloat64(0);
}

function assertRejects(value: unknown, path: string): void {
  assert.throws(
    () => canonicalJson(value),
    (e: unknown) => {
      assert.ok(e instanceof NoemaError);
      assert.equal(e.code, ErrorCode.NOT_CANONICALIZABLE);
      assert.equal(e.details.path, path);
      return true;
    },
  );
}

describe('canonicalJson numbers', () => {
  // RFC 8785 Appendix B: IEEE 754 bit patterns and their canonical serialization.
  const vectors: [string, string][] = [
    ['0000000000000000', '0'],
    ['8000000000000000', '0'],
    ['0000000000000001', '5e-324'],
    ['8000000000000001', '-5e-324'],
    ['7fefffffffffffff', '1.7976931348623157e+308'],
    ['ffefffffffffffff', '-1.7976931348623157e+308'],
    ['4340000000000000', '9007199254740992'],
    ['c340000000000000', '-9007199254740992'],
    ['4430000000000000', '295147905179352830000'],
    ['44b52d02c7e14af5', '9.999999999999997e+22'],
    ['44b52d02c7e14af6', '1e+23'],
    ['44b52d02c7e14af7', '1.0000000000000001e+23'],
    ['444b1ae4d6e2ef4e', '999999999999999700000'],
    ['444b1ae4d6e2ef4f', '999999999999999900000'],
    ['444b1ae4d6e2ef50', '1e+21'],
    ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
    ['3eb0c6f7a0b5ed8d', '0.000001'],
    ['41b3de4355555553', '333333333.3333332'],
    ['41b3de4355555554', '333333333.33333325'],
    ['41b3de4355555555', '333333333.3333333'],
    ['41b3de4355555556', '333333333.3333334'],
    ['41b3de4355555557', '333333333.33333343'],
    ['becbf647612f3696', '-0.0000033333333333333333'],
    ['43143ff3c1cb0959', '1424953923781206.2'],
  ];
  for (const [bits, expected] of vectors) {
    it(`serializes 0x${bits} as ${expected} (RFC 8785 Appendix B)`, () => {
      assert.equal(canonicalJson(fromBits(bits)), expected);
    });
  }

  it('serializes -0 as 0 and small exponents in ECMAScript form', () => {
    assert.equal(canonicalJson(-0), '0');
    assert.equal(canonicalJson(1e-7), '1e-7');
    assert.equal(canonicalJson(1e21), '1e+21');
    assert.equal(canonicalJson(4.5), '4.5');
  });

  it('rejects NaN and infinities with NOT_CANONICALIZABLE', () => {
    assertRejects(fromBits('7fffffffffffffff'), '$');
    assertRejects(Number.POSITIVE_INFINITY, '$');
    assertRejects({ a: [1, Number.NEGATIVE_INFINITY] }, '$.a[1]');
  });
});

describe('canonicalJson objects and strings', () => {
  it('sorts keys by UTF-16 code units (RFC 8785 §3.2.3)', () => {
    const input = {
      '\u20ac': 'Euro Sign',
      '\r': 'Carriage Return',
      '\ufb33': 'Hebrew Letter Dalet With Dagesh',
      '1': 'One',
      '\ud83d\ude00': 'Emoji: Grinning Face',
      '\u0080': 'Control',
      '\u00f6': 'Latin Small Letter O With Diaeresis',
    };
    // Compared on the text: Object.keys on a parsed result would list the integer-like key "1" first.
    assert.equal(
      canonicalJson(input),
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis",' +
        '"\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
    );
  });

  it('reproduces the RFC 8785 §3.2.2 sample exactly', () => {
    const text =
      '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],' +
      ' "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/",' +
      ' "literals": [null, true, false]}';
    assert.equal(
      canonicalJson(JSON.parse(text)),
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],' +
        '"string":"€$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
    );
  });

  it('uses short escapes and lowercase \\u00xx for control characters only', () => {
    assert.equal(canonicalJson('\b\f\n\r\t'), '"\\b\\f\\n\\r\\t"');
    assert.equal(canonicalJson('\u0000\u001f'), '"\\u0000\\u001f"');
    assert.equal(canonicalJson('a/é\u007f😀'), '"a/é\u007f😀"');
  });

  it('emits no whitespace and keeps array order', () => {
    assert.equal(
      canonicalJson({ b: [3, 1, 2], a: { d: null, c: 'x' } }),
      '{"a":{"c":"x","d":null},"b":[3,1,2]}',
    );
  });

  it('omits object properties whose value is undefined', () => {
    assert.equal(canonicalJson({ a: undefined, b: 1 }), '{"b":1}');
  });

  it('calls toJSON like JSON.stringify, so Dates become ISO strings', () => {
    const d = new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 6));
    assert.equal(canonicalJson({ at: d }), '{"at":"2024-01-02T03:04:05.006Z"}');
    assert.equal(canonicalJson({ k: { toJSON: (key: string) => `key=${key}` } }), '{"k":"key=k"}');
  });

  it('agrees with JSON.stringify on already-sorted plain data', () => {
    const value = { a: [1, 'two', { b: false, c: null }], d: 'q"\\', e: 0.1 };
    assert.equal(canonicalJson(value), JSON.stringify(value));
  });

  it('unboxes boxed primitives and serializes class instances by own enumerable keys', () => {
    class Point {
      y = 2;
      x = 1;
    }
    assert.equal(canonicalJson([new Number(1), new String('s'), new Boolean(false)]), '[1,"s",false]');
    assert.equal(canonicalJson(new Point()), '{"x":1,"y":2}');
  });

  it('accepts shared (non-cyclic) references', () => {
    const shared = { x: 1 };
    assert.equal(canonicalJson([shared, shared]), '[{"x":1},{"x":1}]');
  });
});

describe('canonicalJson rejections', () => {
  it('rejects bigint, functions and symbols with the offending path', () => {
    assertRejects(10n, '$');
    assertRejects({ a: [0, 0, () => 1] }, '$.a[2]');
    assertRejects({ 'not ident': Symbol('s') }, '$["not ident"]');
  });

  it('rejects undefined at top level and in arrays', () => {
    assertRejects(undefined, '$');
    assertRejects([1, undefined], '$[1]');
  });

  it('rejects cycles', () => {
    const a: Record<string, unknown> = { n: 1 };
    a.self = a;
    assertRejects(a, '$.self');
    const arr: unknown[] = [];
    arr.push({ back: arr });
    assertRejects(arr, '$[0].back');
  });

  it('rejects lone surrogates, which I-JSON forbids', () => {
    assertRejects({ s: '\ud800' }, '$.s');
  });

  it('rejects Map and Set rather than hashing them as {}', () => {
    assertRejects({ m: new Map() }, '$.m');
    assertRejects(new Set([1]), '$');
  });

  it('reports nesting past MAX_CANONICAL_DEPTH as NOT_CANONICALIZABLE, never a stack overflow', () => {
    const nest = (depth: number, wrap: (v: unknown) => unknown) => {
      let v: unknown = 1;
      for (let i = 0; i < depth; i++) v = wrap(v);
      return v;
    };
    for (const depth of [MAX_CANONICAL_DEPTH + 1, 6_000, 100_000]) {
      for (const wrap of [(v: unknown) => [v], (v: unknown) => ({ a: v })]) {
        assert.throws(
          () => canonicalJson(nest(depth, wrap)),
          (e: unknown) => e instanceof NoemaError && e.code === ErrorCode.NOT_CANONICALIZABLE,
        );
      }
    }
    assert.equal(canonicalJson(nest(MAX_CANONICAL_DEPTH, (v) => [v])).length, 2 * MAX_CANONICAL_DEPTH + 1);
  });
});
