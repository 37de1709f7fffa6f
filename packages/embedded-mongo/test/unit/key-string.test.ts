// Index keys as bytes (key-string.ts): comparing two keys' bytes must give what compareValues, the
// engine's sort, gives for their values, field by field in each field's direction, for every mix of
// BSON types; equal values (5, 5.0, Long(5)) must be one key.
import { Binary, Decimal128, Double, Int32, Long, MaxKey, MinKey, ObjectId, Timestamp } from 'bson';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeKey, encodeKey, encodeValue } from '../../src/key-string.js';
import { compareValues, EMPTY_ARRAY } from '../../src/values.js';

const sign = (n: number) => (n < 0 ? -1 : n > 0 ? 1 : 0);

const number = fc.oneof(
  fc.double(),
  fc.constantFrom(0, -0, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.MIN_VALUE),
  fc.constantFrom(-Number.MIN_VALUE, 2 ** 53, 2 ** 53 + 2, 2 ** 63, -(2 ** 63), 1e-310, 0.1, 1.5),
  fc.integer().map((n) => new Int32(n)),
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map((n) => Long.fromBigInt(n)),
  fc
    .constantFrom(2n ** 53n + 1n, -(2n ** 53n) - 1n, 2n ** 63n - 1n, -(2n ** 63n))
    .map((n) => Long.fromBigInt(n)),
  fc.integer({ min: -1000, max: 1000 }).map((n) => new Double(n)),
  fc.constantFrom('0.1', '1.5', '-2', '1E+400').map((d) => Decimal128.fromString(d)),
);

const text = fc.oneof(
  fc.string({ maxLength: 5 }),
  fc.string({ unit: 'grapheme', maxLength: 3 }),
  fc.constantFrom('', 'a', 'ab', 'a\u0000', 'a\u0001', 'a\u0000b', '\u0001', 'é', '\uffff', '\u{1f600}'),
);

const scalar = fc.oneof(
  number,
  text,
  fc.integer({ min: -5, max: 5 }).map((n) => new Date(n * 1000)),
  fc.constant(new Date(Number.NaN)),
  fc.integer({ min: 0, max: 3 }).map((i) => new ObjectId(`00000000000000000000000${i}`)),
  fc.constantFrom(null, true, false, new MinKey(), new MaxKey(), EMPTY_ARRAY),
  fc.uint8Array({ maxLength: 3 }).map((bytes) => new Binary(bytes)),
  fc.tuple(fc.nat(3), fc.nat(3)).map(([t, i]) => new Timestamp({ t, i })),
  fc.constantFrom(/a/, /a/i, /a+/, /b/, /a\//),
);

const value = fc.letrec((tie) => ({
  any: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, tie('array'), tie('object')),
  array: fc.array(tie('any'), { maxLength: 3 }),
  object: fc.dictionary(fc.constantFrom('a', 'b', 'ab', ''), tie('any'), { maxKeys: 3 }),
})).any;

describe('index keys as bytes', () => {
  it('order two values as compareValues does, and are equal exactly when the values are', () => {
    fc.assert(
      fc.property(value, value, (a, b) => {
        expect(sign(Buffer.compare(encodeValue(a), encodeValue(b)))).toBe(sign(compareValues(a, b)));
      }),
      { numRuns: 5000 },
    );
  });

  it('order compound keys field by field, a descending field reversed', () => {
    fc.assert(
      fc.property(
        fc.tuple(value, value),
        fc.tuple(value, value),
        fc.constantFrom(1, -1),
        fc.constantFrom(1, -1),
        ([a1, a2], [b1, b2], d1, d2) => {
          const expected = d1 * compareValues(a1, b1) || d2 * compareValues(a2, b2);
          const bytes = Buffer.compare(encodeKey([a1, a2], [d1, d2]), encodeKey([b1, b2], [d1, d2]));
          expect(sign(bytes)).toBe(sign(expected));
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('decode to values that compare as the encoded ones, and encode to the same bytes again', () => {
    fc.assert(
      fc.property(
        fc.tuple(value, value),
        fc.constantFrom(1, -1),
        fc.constantFrom(1, -1),
        (values, d1, d2) => {
          const bytes = encodeKey(values, [d1, d2]);
          const framed = Buffer.concat([Buffer.from('prefix'), bytes, Buffer.alloc(8)]);
          const decoded = decodeKey(framed, 6, [d1, d2]);
          expect(compareValues(decoded[0], values[0])).toBe(0);
          expect(compareValues(decoded[1], values[1])).toBe(0);
          expect(encodeKey(decoded, [d1, d2])).toEqual(bytes);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it('order strings by code point, as mongod compares their UTF-8 bytes', () => {
    // UTF-16 units put U+FFFF after U+1F600 (a surrogate pair, D83D DE00); code points do not.
    const ordered = ['', '\u0000', 'a', 'a\u0000', 'ab', 'é', '\uffff', '\u{1f600}', '\u{1f600}a'];
    for (let i = 1; i < ordered.length; i++) {
      expect(compareValues(ordered[i - 1], ordered[i])).toBe(-1);
      expect(Buffer.compare(encodeValue(ordered[i - 1]), encodeValue(ordered[i]))).toBe(-1);
    }
  });

  it('order regular expressions by pattern, then flags', () => {
    const ordered = [/a/, /a/i, /a+/, /b/];
    for (let i = 1; i < ordered.length; i++) {
      expect(compareValues(ordered[i - 1], ordered[i])).toBe(-1);
      expect(Buffer.compare(encodeValue(ordered[i - 1]), encodeValue(ordered[i]))).toBe(-1);
    }
  });

  it('are one key for the same number in any numeric type', () => {
    const five = encodeValue(5);
    for (const same of [new Double(5), new Int32(5), Long.fromNumber(5), 5n, Decimal128.fromString('5')])
      expect(encodeValue(same)).toEqual(five);
    expect(encodeValue(-0)).toEqual(encodeValue(0));
    // Exact beyond a double's 53 bits: 2^53 + 1 is its own key, between 2^53 and 2^53 + 2.
    const [below, exact, above] = [2 ** 53, 2n ** 53n + 1n, 2 ** 53 + 2].map((n) =>
      encodeValue(typeof n === 'bigint' ? Long.fromBigInt(n) : n),
    );
    expect(Buffer.compare(below!, exact!)).toBe(-1);
    expect(Buffer.compare(exact!, above!)).toBe(-1);
  });
});
