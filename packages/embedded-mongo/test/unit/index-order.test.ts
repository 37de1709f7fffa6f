// An index holds its keys in BSON order, field by field in each field's direction: whatever mix of
// types a field holds, a full scan gives the order compareValues (the engine's sort) gives.
import { Double, Int32, Long, ObjectId } from 'bson';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FULL_INTERVAL, Index } from '../../src/indexes.js';
import { compareValues } from '../../src/values.js';

const value = fc.oneof(
  fc.string({ maxLength: 4 }),
  fc.constantFrom('', 'a', 'ab', 'b', 'é', '\u0000'),
  fc.double(),
  fc.constantFrom(0, -0, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 1, 2),
  fc.integer({ min: -3, max: 3 }).map((n) => new Int32(n)),
  fc.integer({ min: -3, max: 3 }).map((n) => Long.fromNumber(n)),
  fc.constantFrom(new Double(1), new Double(1.5)),
  fc.integer({ min: -5, max: 5 }).map((n) => new Date(n * 1000)),
  fc.constant(new Date(Number.NaN)),
  fc.constantFrom(...Array.from({ length: 3 }, (_, i) => new ObjectId(`00000000000000000000000${i}`))),
  fc.constantFrom(null, true, false),
);

describe('index order', () => {
  it('a full scan gives compareValues order, in each field direction, ties by record', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(value, value), { minLength: 1, maxLength: 60 }),
        fc.constantFrom(1, -1),
        fc.constantFrom(1, -1),
        (docs, da, db) => {
          const index = new Index({ v: 2, name: 'a_b', key: { a: da, b: db } });
          docs.forEach(([a, b], seq) => {
            index.add(seq, index.keysFor({ a, b }));
          });
          const scanned = [...index.scan([[FULL_INTERVAL], [FULL_INTERVAL]], 1, { keysExamined: 0 })].map(
            (entry) => entry!.seq,
          );
          const expected = docs
            .map((_, seq) => seq)
            .sort(
              (x, y) =>
                compareValues(docs[x]![0], docs[y]![0]) * da ||
                compareValues(docs[x]![1], docs[y]![1]) * db ||
                x - y,
            );
          expect(scanned).toEqual(expected);
        },
      ),
      { numRuns: 300 },
    );
  });
});
