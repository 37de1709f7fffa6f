// Large stored documents decoded field by field as they are read (lazy-document.ts): whatever is
// read of one, and in whatever order, it is the document decodeDocument gives, values, types and
// field order alike; and through the engine, a projection of a large document answers the same.
import { Binary, BSON, Decimal128, Double, Int32, Long, MaxKey, MinKey, ObjectId, Timestamp } from 'bson';
import fc from 'fast-check';
import { MongoClient } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { startEmbeddedMongo } from '../../src/index.js';
import {
  apartPlaces,
  joinDocument,
  lazyDocument,
  splitDocument,
  storedDocument,
} from '../../src/stored-document.js';
import { decodeDocument } from '../../src/wire.js';

const scalar = fc.oneof(
  fc.double(),
  fc.integer().map((n) => new Int32(n)),
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map((n) => Long.fromBigInt(n)),
  fc.integer({ min: -1000, max: 1000 }).map((n) => new Double(n)),
  fc.constantFrom('0.1', '-2', '1E+400').map((d) => Decimal128.fromString(d)),
  fc.string({ maxLength: 8 }),
  fc.string({ unit: 'grapheme', maxLength: 4 }),
  fc.integer({ min: -5, max: 5 }).map((n) => new Date(n * 1000)),
  fc.integer({ min: 0, max: 3 }).map((i) => new ObjectId(`00000000000000000000000${i}`)),
  fc.constantFrom(null, true, false, new MinKey(), new MaxKey()),
  fc.uint8Array({ maxLength: 5 }).map((bytes) => new Binary(bytes)),
  fc.tuple(fc.nat(3), fc.nat(3)).map(([t, i]) => new Timestamp({ t, i })),
  fc.constantFrom(/a/, /a/i, /é+/u),
);

const value = fc.letrec((tie) => ({
  any: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalar, tie('array'), tie('object')),
  array: fc.array(tie('any'), { maxLength: 4 }),
  object: fc.dictionary(fc.string({ minLength: 1, maxLength: 4 }), tie('any'), { maxKeys: 4 }),
})).any;

const document = fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), value, { minKeys: 1, maxKeys: 8 });

describe('a large document decoded as its fields are read', () => {
  it('is, read in any order, the document decodeDocument gives', () => {
    fc.assert(
      fc.property(document, fc.array(fc.nat()), (doc, reads) => {
        const bytes = BSON.serialize(doc);
        const whole = decodeDocument(bytes);
        const lazy = lazyDocument(new Uint8Array(bytes));
        const names = Object.keys(whole);
        expect(Object.keys(lazy)).toEqual(names);
        // Some fields first, in the order given, then all of it.
        for (const i of reads) {
          const name = names[i % names.length]!;
          expect(lazy[name]).toEqual(whole[name]);
        }
        expect({ ...lazy }).toEqual(whole);
        expect(decodeDocument(BSON.serialize(lazy))).toEqual(whole);
      }),
      { numRuns: 1000 },
    );
  });

  it('leaves the fields not read undecoded', () => {
    const bytes = BSON.serialize({
      recordingId: 7,
      entries: Array.from({ length: 2000 }, (_, i) => ({ i })),
    });
    const doc = storedDocument(new Uint8Array(bytes));
    expect(doc.recordingId).toBe(7);
    expect(Object.getOwnPropertyDescriptor(doc, 'entries')?.get).toBeDefined();
    expect(Object.getOwnPropertyDescriptor(doc, 'recordingId')?.value).toBe(7);
  });

  it('answers a query on a large stored document as it answers one on a small one', async () => {
    const engine = await startEmbeddedMongo();
    const client = await new MongoClient(engine.uri).connect();
    try {
      const collection = client.db('app').collection('transcripts');
      const entries = (n: number) =>
        Array.from({ length: n }, (_, i) => ({
          speaker: { name: `S${i % 3}` },
          text: `line ${i}`,
          at: i * 1.5,
        }));
      await collection.insertMany([
        { recordingId: 1, entries: entries(3), speakers: ['S0'] },
        { recordingId: 2, entries: entries(3_000), speakers: ['S0', 'S1', 'S2'] },
      ]);
      await collection.createIndex({ recordingId: 1 });
      // Written documents are not cached: what follows is decoded from the store.
      const reader = await new MongoClient(engine.uri).connect();
      try {
        const again = reader.db('app').collection('transcripts');
        const projected = await again
          .find({ recordingId: { $in: [1, 2] } }, { projection: { _id: 0, recordingId: 1, speakers: 1 } })
          .sort({ recordingId: 1 })
          .toArray();
        expect(projected).toEqual([
          { recordingId: 1, speakers: ['S0'] },
          { recordingId: 2, speakers: ['S0', 'S1', 'S2'] },
        ]);
        const whole = await again.findOne({ recordingId: 2 }, { projection: { _id: 0 } });
        expect(whole).toEqual({ recordingId: 2, entries: entries(3_000), speakers: ['S0', 'S1', 'S2'] });
        const matched = await again.countDocuments({ 'entries.text': 'line 2999' });
        expect(matched).toBe(1);
        // Read in part (filter, sort and projection name their fields): the same answers as whole.
        const byFilterAndSort = await again
          .find({ recordingId: { $gte: 1 }, speakers: 'S1' }, { projection: { _id: 0, recordingId: 1 } })
          .sort({ speakers: -1 })
          .toArray();
        expect(byFilterAndSort).toEqual([{ recordingId: 2 }]);
        const allButEntries = await again.findOne({ recordingId: 2 }, { projection: { _id: 0, entries: 0 } });
        expect(allButEntries).toEqual({ recordingId: 2, speakers: ['S0', 'S1', 'S2'] });
        const firstLines = await again.findOne(
          { recordingId: 2 },
          { projection: { _id: 0, entries: { $slice: 2 } } },
        );
        expect(firstLines).toEqual({ recordingId: 2, entries: entries(2), speakers: ['S0', 'S1', 'S2'] });
        expect(await again.distinct('speakers', { recordingId: { $in: [1, 2] } })).toEqual([
          'S0',
          'S1',
          'S2',
        ]);
        expect(await again.countDocuments({ recordingId: { $gt: 1 } })).toBe(1);
      } finally {
        await reader.close();
      }
    } finally {
      await client.close();
      await engine.close();
    }
  });
});

describe('a large document stored with its large fields apart', () => {
  // Fields small and large (a long string: over APART_FIELD_BYTES) in any order, the document large.
  const field = fc.oneof(
    value,
    fc.integer({ min: 1, max: 30 }).map((k) => 'x'.repeat(k * 200)),
  );
  const document = fc
    .dictionary(
      fc.string({ minLength: 1, maxLength: 6 }).filter((k) => !k.includes('\u0000')),
      field,
      {
        minKeys: 1,
        maxKeys: 8,
      },
    )
    .map((fields) => ({ ...fields, padding: 'p'.repeat(17_000) }));

  it('joins back to the very bytes it was, and to a document of the fields asked for, in order', () => {
    fc.assert(
      fc.property(document, fc.func(fc.boolean()), (doc, keep) => {
        const bson = BSON.serialize(doc);
        const { head, apart } = splitDocument(bson);
        const places = apartPlaces(head);
        expect(places.map(([, name]) => name)).toEqual(apart.map(([name]) => name));
        // Compared as bytes (toEqual walks a 100 KB buffer element by element).
        expect(Buffer.from(joinDocument(head, places, new Map(apart))).equals(bson)).toBe(true);
        // Some of the apart fields only: the others left out, the rest in the document's order.
        const some = apart.filter(([name]) => keep(name));
        const names = new Set(some.map(([name]) => name));
        const partial = decodeDocument(joinDocument(head, places, new Map(some)));
        const expected = Object.keys(doc).filter(
          (name) => !apart.some(([n]) => n === name) || names.has(name),
        );
        expect(Object.keys(partial)).toEqual(expected);
      }),
      { numRuns: 100 },
    );
  });

  it('keeps a field whose name is too long for an LMDB key in the head, whatever its size', () => {
    const name = 'n'.repeat(3000);
    const bson = BSON.serialize({ _id: 1, [name]: 'v'.repeat(20_000), lines: 'l'.repeat(5000) });
    const { head, apart } = splitDocument(bson);
    expect(apart.map(([field]) => field)).toEqual(['lines']);
    expect(Buffer.from(joinDocument(head, apartPlaces(head), new Map(apart))).equals(bson)).toBe(true);
  });
});
