// An index keeps its entries in LMDB (index-store.ts) in BSON order, field by field in each field's
// direction: whatever mix of types a field holds, a scan gives the order compareValues (the engine's
// sort) gives, whether the entries are committed, waiting for a commit, or removed in between; and a
// scan of bounds (values or a type's edges, inclusive or not, either way) gives exactly the keys
// within them.
import { Double, Int32, Long, ObjectId } from 'bson';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { IndexStore, LONGEST_INDEX_KEY } from '../../src/index-store.js';
import {
  directionsOf,
  FULL_INTERVAL,
  Index,
  type IndexSpec,
  type Interval,
  inInterval,
  MAX_KEY,
  MIN_KEY,
  TypeEdge,
} from '../../src/indexes.js';
import { Store } from '../../src/persistence.js';
import { newStorageId } from '../../src/records.js';
import { compareValues, typeOrder } from '../../src/values.js';

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

/** What a stored document can hold: BSON has no invalid date, so none comes back from the store. */
const storable = value.filter((v) => !(v instanceof Date && Number.isNaN(v.getTime())));

/** A bound as the planner makes them: a value, a type's edge, or the ends of everything. */
const bound = fc.oneof(
  value,
  fc
    .constantFrom(2, 3, 4, 8, 9, 10)
    .chain((order) => fc.constantFrom(new TypeEdge(order, -1), new TypeEdge(order, 1))),
  fc.constantFrom(MIN_KEY, MAX_KEY),
);

const compareBounds = (a: unknown, b: unknown): number => {
  const order = (x: unknown) => (x instanceof TypeEdge ? x.order : typeOrder(x));
  const side = (x: unknown) => (x instanceof TypeEdge ? x.side : 0);
  return (
    order(a) - order(b) ||
    (a instanceof TypeEdge || b instanceof TypeEdge ? side(a) - side(b) : compareValues(a, b))
  );
};

const interval = fc.tuple(bound, bound, fc.boolean(), fc.boolean()).map(([x, y, loInc, hiInc]): Interval => {
  const [lo, hi] = compareBounds(x, y) <= 0 ? [x, y] : [y, x];
  return { lo, loInc, hi, hiInc };
});

const store = Store.temporary();
afterAll(() => store.close());

function newIndex(spec: IndexSpec): Index {
  return new Index(
    spec,
    undefined,
    new IndexStore(store.records.keys, newStorageId(), directionsOf(spec.key)),
  );
}

/** Writes the index's changes as the store's commit does, and settles them. */
async function commit(index: Index): Promise<void> {
  const { writes, settle } = index.entries!.takeUnsaved();
  const db = store.records.keys;
  await db.batch(() => {
    for (const [key, bytes] of writes) {
      if (bytes) db.put(key, bytes);
      else db.remove(key);
    }
  });
  settle();
}

const scanOf = (index: Index, bounds: Interval[][], direction: 1 | -1 = 1) =>
  [...index.scan(bounds, direction, { keysExamined: 0 })].filter((entry) => entry !== undefined);

describe('index order', () => {
  it('a full scan gives compareValues order, in each field direction, ties by record, committed or not', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(value, value, fc.boolean(), fc.constantFrom('kept', 'removed', 'removed later')), {
          minLength: 1,
          maxLength: 40,
        }),
        fc.constantFrom(1, -1),
        fc.constantFrom(1, -1),
        fc.integer({ min: 0, max: 40 }),
        async (docs, da, db, committedCount) => {
          const index = newIndex({ v: 2, name: 'a_b', key: { a: da, b: db } });
          const keysOf = docs.map(([a, b]) => index.keysFor({ a, b }));
          docs.forEach((_, seq) => {
            index.add(seq, keysOf[seq]!);
            if (seq === committedCount - 1) void commit(index);
          });
          docs.forEach(([, , , fate], seq) => {
            if (fate === 'removed') index.remove(seq, keysOf[seq]!);
          });
          await commit(index);
          docs.forEach(([, , , fate], seq) => {
            if (fate === 'removed later') index.remove(seq, keysOf[seq]!);
          });
          const scanned = scanOf(index, [[FULL_INTERVAL], [FULL_INTERVAL]]).map((entry) => entry.seq);
          const expected = docs
            .map((_, seq) => seq)
            .filter((seq) => docs[seq]![3] === 'kept')
            .sort(
              (x, y) =>
                compareValues(docs[x]![0], docs[y]![0]) * da ||
                compareValues(docs[x]![1], docs[y]![1]) * db ||
                x - y,
            );
          expect(scanned).toEqual(expected);
          const backwards = scanOf(index, [[FULL_INTERVAL], [FULL_INTERVAL]], -1).map((entry) => entry.seq);
          expect(backwards).toEqual(expected.slice().reverse());
        },
      ),
      { numRuns: 150 },
    );
  });

  it('a scan of bounds gives the keys within them, with their values, in order', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(storable, storable), { minLength: 1, maxLength: 40 }),
        fc.constantFrom(1, -1),
        interval,
        fc.option(storable, { nil: undefined }),
        fc.constantFrom<1 | -1>(1, -1),
        async (docs, da, range, first, direction) => {
          const index = newIndex({ v: 2, name: 'a_b', key: { a: 1, b: da } });
          docs.forEach(([a, b], seq) => {
            index.add(seq, index.keysFor({ a: first === undefined ? a : first, b }));
          });
          await commit(index);
          // A point on the leading field and a range on the second, as the planner bounds a compound index.
          const leading =
            first === undefined ? FULL_INTERVAL : { lo: first, loInc: true, hi: first, hiInc: true };
          const entries = scanOf(index, [[leading], [range]], direction);
          const within = docs
            .map((_, seq) => seq)
            .filter((seq) => inInterval(docs[seq]![1], range))
            .sort(
              (x, y) =>
                ((first === undefined && compareValues(docs[x]![0], docs[y]![0])) ||
                  compareValues(docs[x]![1], docs[y]![1]) * da ||
                  x - y) * direction,
            );
          expect(entries.map((entry) => entry.seq)).toEqual(within);
          for (const entry of entries) expect(compareValues(entry.values[1], docs[entry.seq]![1])).toBe(0);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('a unique index finds a duplicate whether it is committed or not, and not once it is removed', async () => {
    const index = newIndex({ v: 2, name: 'a_1', key: { a: 1 }, unique: true });
    const five = index.keysFor({ a: 5 });
    index.add(1, five);
    expect(index.conflict(index.keysFor({ a: new Double(5) }))).toBeDefined();
    expect(index.conflict(index.keysFor({ a: 5 }), 1)).toBeUndefined();
    await commit(index);
    expect(index.conflict(index.keysFor({ a: Long.fromNumber(5) }))).toBeDefined();
    index.remove(1, five);
    expect(index.conflict(index.keysFor({ a: 5 }))).toBeUndefined();
    await commit(index);
    expect(index.conflict(index.keysFor({ a: 5 }))).toBeUndefined();
  });

  it('an entry changed several times before a commit, or while one is in flight, ends as the last change left it', async () => {
    const index = newIndex({ v: 2, name: 'a_1', key: { a: 1 } });
    const all = () =>
      scanOf(index, [[{ lo: MIN_KEY, loInc: true, hi: MAX_KEY, hiInc: true }]]).map((e) => e.seq);
    const [one, two] = [index.keysFor({ a: 1 }), index.keysFor({ a: 2 })];
    // Added, removed and added again; added and removed: one commit writes each change in order.
    index.add(1, one);
    index.remove(1, one);
    index.add(1, one);
    index.add(2, two);
    index.remove(2, two);
    await commit(index);
    expect(all()).toEqual([1]);
    const prefix = Buffer.from(index.storageId, 'latin1');
    const stored = store.records.keys.getKeys({
      start: prefix,
      end: Buffer.concat([prefix, Buffer.of(0xff)]),
    });
    expect([...stored]).toHaveLength(1);
    // Removed while the commit that writes it is in flight: the overlay keeps the removal.
    index.add(3, index.keysFor({ a: 3 }));
    const inFlight = commit(index);
    index.remove(3, index.keysFor({ a: 3 }));
    await inFlight;
    expect(all()).toEqual([1]);
    await commit(index);
    expect(all()).toEqual([1]);
    // Read only while its commit is in flight, and only once it is done.
    index.add(4, index.keysFor({ a: 4 }));
    const writing = commit(index);
    expect(all()).toEqual([1, 4]);
    await writing;
    index.remove(4, index.keysFor({ a: 4 }));
    await commit(index);
    expect(all()).toEqual([1]);
  });

  it('scans bounds longer than any key LMDB takes (a query for a long string)', async () => {
    const index = newIndex({ v: 2, name: 'a_1', key: { a: -1 } });
    const near = 'x'.repeat(LONGEST_INDEX_KEY - 10);
    const strings = [near, `${near}y`, 'x', 'y'];
    strings.forEach((a, seq) => {
      index.add(seq, index.keysFor({ a }));
    });
    await commit(index);
    const long = 'x'.repeat(5000);
    for (const [iv, expected] of [
      [{ lo: long, loInc: true, hi: long, hiInc: true }, []],
      [{ lo: 'x', loInc: false, hi: long, hiInc: true }, [0]],
      [{ lo: long, loInc: true, hi: 'y', hiInc: true }, [3, 1]],
    ] as const) {
      const within = scanOf(index, [[iv]]).filter((entry) => inInterval(entry.values[0], iv));
      expect(within.map((entry) => entry.seq)).toEqual(expected);
    }
  });

  it('refuses a key longer than the store keeps, before anything changes', () => {
    const index = newIndex({ v: 2, name: 'a_1', key: { a: 1 } });
    expect(index.keysFor({ a: 'x'.repeat(LONGEST_INDEX_KEY - 10) })).toHaveLength(1);
    expect(() => index.keysFor({ a: 'x'.repeat(LONGEST_INDEX_KEY) })).toThrow(
      expect.objectContaining({ code: 17280 }),
    );
  });
});
